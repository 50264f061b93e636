"""The load test with its servers behind nginx (`--balancer nginx`): locust calls nginx,
which spreads the calls over both replicas by calls in flight, so that with one user per
search slot hardly any call is refused busy (client-side round robin refuses and retries
about a quarter of them at iteration budgets: bench/RESULTS.md)."""
from __future__ import annotations

from pathlib import Path

from test_locust import run_loadtest

from gallerist.server.balancer import nginx


def test_servers_behind_nginx_share_the_calls_with_few_busy_retries(tmp_path: Path) -> None:
    """Two single-slot replicas behind nginx, two users, 100 iterations a call: no
    failure, busy retries at most 2% of the calls, and both replicas answered."""
    nginx.find_nginx()   # missing: fails saying which Debian package to install
    code, summary, output = run_loadtest(
        tmp_path, "--duration", "4", "--workers", "1", "--replicas", "2", "--users", "2",
        "--players", "0", "--budgets", "iterations=100", "--balancer", "nginx",
        "--server-arg=--log-level=INFO")
    assert code == 0, output
    assert summary["config"]["balancer"] == "nginx"
    assert "," not in summary["config"]["target"]        # one address: nginx's
    assert summary["failures"] == 0 and summary["hint_requests"] > 50, output
    assert summary["retries"] <= 0.02 * summary["hint_requests"], output
    for log in sorted(tmp_path.glob("loadtest_server*.log")):
        assert "SuggestMoves" in log.read_text(), log
    assert "(nginx)" in output and summary["server_exit_codes"] == [0, 0]
