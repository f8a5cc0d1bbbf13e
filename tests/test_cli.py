"""User mistakes on the command line: one line on stderr, exit code 2, never a traceback."""

from __future__ import annotations

import pytest

from jigsaw_puzzles.cli import main


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("jigsaw-puzzles: error: ")
    return lines[-1]


@pytest.mark.parametrize("case", ["missing", "file", "empty"])
def test_bad_source_folder(case, tmp_path, capsys):
    source = {"missing": tmp_path / "nowhere", "file": tmp_path / "photo.jpg", "empty": tmp_path / "empty"}[case]
    if case == "file":
        source.write_bytes(b"not a folder")
    if case == "empty":
        source.mkdir()
    rc = main(["build", "--out", str(tmp_path / "out"), "--source", str(source), "--configs", "order_generation",
               "--cache-dir", str(tmp_path / "c")])
    line = one_error_line(capsys)
    assert rc == 2
    assert {"missing": "not found", "file": "not a file", "empty": "needs at least 1 usable source"}[case] in line
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_hard_config_without_weights_offline(tmp_path, capsys, monkeypatch, photo_dir):
    pytest.importorskip("open_clip")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty_hf_home"))
    rc = main(["build", "--out", str(tmp_path / "out"), "--source", str(photo_dir),
               "--configs", "missing_piece_selection_hard", "--cache-dir", str(tmp_path / "c")])
    line = one_error_line(capsys)
    assert rc == 2 and "missing_piece_selection_hard" in line and "ViT-B-32" in line


def test_unknown_config_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "--model", "solver", "--configs", "not_a_config"])
    assert exit_.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_builtin_model_with_another_backend(tmp_path, capsys):
    rc = main(["eval", "--model", "random", "--backend", "openai", "--out", str(tmp_path / "r")])
    assert rc == 2 and "built-in baseline" in one_error_line(capsys)
