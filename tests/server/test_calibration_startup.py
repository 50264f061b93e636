"""A missing or corrupt calibration file (the maps behind every hint number) is a clear
error when the command starts, naming the file: `gallerist serve` refuses to start, and a
command that makes a local bot stops before searching (exit status 1, no traceback)."""
from __future__ import annotations

import pytest

from gallerist.ai.calibration.maps import ENV_VAR
from gallerist.cli.main import main


@pytest.mark.parametrize("content", [None, "{not json", '{"format": "gallerist-calibration/1"}'])
@pytest.mark.parametrize("argv", [["serve", "--port", "0"], ["hint", "--demo", "--local", "--bot", "greedy"]])
def test_bad_calibration_file_stops_the_command_naming_the_file(tmp_path, monkeypatch, capsys,
                                                                content, argv):
    path = tmp_path / "calibration.json"
    if content is not None:
        path.write_text(content)
    monkeypatch.setenv(ENV_VAR, str(path))
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: calibration file ") and str(path) in err
    assert "Traceback" not in err and err.count("\n") == 1
