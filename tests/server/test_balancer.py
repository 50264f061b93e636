"""The load balancer's configuration and its bad input: the nginx configuration that
`gallerist serve --balancer nginx` and `gallerist balancer-config` write, checked by
nginx itself, and the one-line errors for a taken port, a missing nginx and options that
do not go together. The runs with replicas are in test_balancer_faults.py."""
from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from gallerist.server.balancer import nginx
from gallerist.server.balancer.nginx import nginx_config, standalone_config
from gallerist.cli.main import main

REPLICAS = ["127.0.0.1:7001", "127.0.0.1:7002"]


def require_nginx() -> str:
    """The nginx program; fails (never skips) when it is missing."""
    found = shutil.which("nginx") or shutil.which("nginx", path=nginx.SBIN_DIRS)
    assert found, "nginx is missing: apt-get install nginx (bash tests/run.sh installs it)"
    return found


def test_config_balances_by_calls_in_flight_and_never_resends_a_sent_call() -> None:
    """least_conn over a shared zone; each replica left out 5 s after a failed connection;
    another replica is tried only for a call never sent (no non_idempotent); a replica
    marked down gets no calls."""
    text = nginx_config(REPLICAS, "127.0.0.1:7000", down=["127.0.0.1:7002"])
    assert "least_conn;" in text and "zone gallerist" in text
    assert "server 127.0.0.1:7001 max_fails=1 fail_timeout=5s;" in text
    assert "server 127.0.0.1:7002 down;" in text
    assert "grpc_pass grpc://gallerist;" in text
    assert "grpc_next_upstream error timeout;" in text and "non_idempotent" not in text
    assert "listen 127.0.0.1:7000 http2;" in text


def test_nginx_accepts_the_whole_configuration(tmp_path: Path) -> None:
    """`nginx -t` accepts the file `serve --balancer nginx` runs (pid, logs and temporary
    files in its own folder), with TLS too."""
    binary = require_nginx()
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    web = ("127.0.0.1:7080", ["127.0.0.1:7081", "127.0.0.1:7082"])
    for tls in ({}, {"tls_cert": str(cert), "tls_key": str(key)}):
        for http in (None, web):
            conf = tmp_path / "nginx.conf"
            conf.write_text(standalone_config(nginx_config(REPLICAS, "127.0.0.1:7000", http=http,
                                                           **tls), str(tmp_path)))
            done = subprocess.run([binary, "-p", str(tmp_path), "-c", str(conf), "-e",
                                   "stderr", "-t"], capture_output=True, text=True, timeout=30)
            assert done.returncode == 0, done.stderr
            assert f"pid {tmp_path}/nginx.pid;" in conf.read_text()


def test_balancer_config_prints_the_blocks_for_the_addresses(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`gallerist balancer-config A B --listen L` prints the upstream and server blocks
    for those addresses; a bad address is one error line naming it (exit 2)."""
    assert main(["balancer-config", "10.0.0.2:50051", "10.0.0.3:50051", "--listen",
                 "0.0.0.0:50051"]) == 0
    out = capsys.readouterr().out
    assert "server 10.0.0.2:50051 max_fails=1" in out and "server 10.0.0.3:50051 " in out
    assert "listen 0.0.0.0:50051 http2;" in out and "/etc/nginx/conf.d/gallerist.conf" in out
    assert main(["balancer-config", "10.0.0.2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: replica '10.0.0.2': give HOST:PORT with a port in 1..65535 "
                   "(e.g. 10.0.0.2:50051)"]


def test_balancer_config_fronts_the_http_ports_too(capsys: pytest.CaptureFixture[str]) -> None:
    """With --http-replicas, an HTTP front for the replicas' HTTP ports (in order), which
    passes the client's address on; one address too few is an error naming the option."""
    assert main(["balancer-config", "10.0.0.2:50051", "10.0.0.3:50051", "--http-replicas",
                 "10.0.0.2:8080,10.0.0.3:8080", "--http-listen", "0.0.0.0:8080"]) == 0
    out = capsys.readouterr().out
    assert "upstream gallerist_http" in out and "server 10.0.0.3:8080 max_fails=1" in out
    assert "listen 0.0.0.0:8080;" in out and "X-Real-IP $remote_addr" in out
    assert "$host !~*" not in out   # the Host check is for a front on localhost
    assert main(["balancer-config", "10.0.0.2:50051", "10.0.0.3:50051", "--http-replicas",
                 "10.0.0.2:8080"]) == 2
    assert "--http-replicas: 1 addresses for 2 replicas" in capsys.readouterr().err


def test_a_taken_balancer_port_is_refused_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    """The port nginx would listen on is held by another program: one line naming the
    option and the port, exit 1, before any replica starts."""
    require_nginx()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        assert main(["serve", "--balancer", "nginx", "--replicas", "2", "--host", "127.0.0.1",
                     "--port", str(port)]) == 1
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --port {port}: port {port} is in use")
    assert "replica" not in captured.out


def test_missing_nginx_says_which_debian_package_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """No nginx on PATH or in /usr/sbin: one line naming Debian's package, exit 1."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(nginx, "SBIN_DIRS", str(tmp_path))
    assert main(["serve", "--balancer", "nginx", "--port", "0"]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: --balancer nginx: nginx is not installed; install Debian's nginx package "
        "(apt-get install nginx)"]


@pytest.mark.parametrize("argv, message", [
    (["--replicas", "2"], "error: --replicas needs --balancer nginx"),
    (["--balancer", "nginx", "--cors-origin", "http://a.example"],
     "error: --cors-origin is for the HTTP port"),
])
def test_options_that_do_not_go_with_the_balancer(argv: list[str], message: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """--replicas alone, or --cors-origin without --http: one error line, exit 2."""
    assert main(["serve", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message)
