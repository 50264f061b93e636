"""`gallerist calibrate DATA [--install]`: the calibration fit of a data folder, as the
package runs it (bench/calibration.py's `fit` step calls the same fit), on the small
synthetic set of test_calibration_bench.py."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from gallerist.ai.calibration import fit_files
from gallerist.ai.calibration.maps import PACKAGED, Calibration
from gallerist.cli.main import main
from test_calibration_bench import _rows, _write_moves


def _data(folder: Path, players: tuple[int, ...] = (1, 2, 3, 4)) -> Path:
    """The three files of a data folder, of `players` games only."""
    rows, turns = _rows()
    with gzip.open(folder / "evals.jsonl.gz", "wt") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows if r["players"] in players)
    (folder / "final_turns.json").write_text(json.dumps(
        {k: v for k, v in turns.items() if int(k.split("/")[0]) in players}))
    _write_moves(folder)
    return folder


def test_calibrate_writes_the_maps_into_the_folder(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The fitted maps load as a complete calibration file; the output says what the fit
    saw and where the file is; nothing is installed without --install."""
    packaged = Path(PACKAGED).read_bytes()
    assert main(["calibrate", str(_data(tmp_path))]) == 0
    out = capsys.readouterr().out
    cal = Calibration.load(str(tmp_path / "calibration.json"))
    assert cal.info["fitted_by"] == "gallerist calibrate"
    assert cal.info["training_games"] == {"1": 20, "2": 20, "3": 20, "4": 20}
    assert set(cal.move_scales) == {"expectimax", "static"}
    assert "fitted on 1,200 positions" in out and "move scales: expectimax $" in out
    assert f"wrote {tmp_path / 'calibration.json'}" in out
    assert "installed" not in out
    assert Path(PACKAGED).read_bytes() == packaged


def test_install_replaces_the_packaged_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """--install writes the fitted file as the package's calibration.json (here a copy
    standing in for it) and --out puts the fitted file elsewhere."""
    target = tmp_path / "package" / "calibration.json"
    target.parent.mkdir()
    target.write_text("{}")
    monkeypatch.setattr(fit_files, "PACKAGED", str(target))
    (tmp_path / "data").mkdir()
    data = _data(tmp_path / "data")
    out_file = tmp_path / "fitted.json"
    assert main(["calibrate", str(data), "--out", str(out_file), "--install"]) == 0
    assert f"installed as {target}" in capsys.readouterr().out
    assert target.read_bytes() == out_file.read_bytes()
    assert not (data / "calibration.json").exists()
    assert Calibration.load(str(target)).maps == Calibration.load(str(out_file)).maps


def test_an_incomplete_fit_is_not_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Data of 2-player games only fits no solo or 3-4 player maps: written, but not
    installed (status 1), and the package's file is left as it was."""
    target = tmp_path / "calibration.json.packaged"
    target.write_text("old")
    monkeypatch.setattr(fit_files, "PACKAGED", str(target))
    assert main(["calibrate", str(_data(tmp_path, players=(2,))), "--install"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: not installed: calibration file ") and ": missing" in err
    assert target.read_text() == "old"


def test_missing_data_is_a_usage_error(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A folder without the evaluate step's files: status 2 naming the file and what
    writes it; not a folder at all: status 2."""
    assert main(["calibrate", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'evals.jsonl.gz'} does not exist" in err
    assert "bench/calibration.py generate, evaluate and moves" in err
    assert main(["calibrate", str(tmp_path / "none")]) == 2
    assert "not a folder" in capsys.readouterr().err
