"""``fmacro fdelta`` wiring (register / run) and the progress bar."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from fmacro.cli import fdelta as _cli


def _parse(argv):
    parser = argparse.ArgumentParser(prog="fmacro")
    _cli.register(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(argv)


def test_small_run_prints_table_and_writes_json(tmp_path, capsys):
    path = tmp_path / "r.json"
    args = _parse(
        [
            "fdelta",
            "--types",
            "RND",
            "--ratios",
            "1",
            "--datasets",
            "1",
            "--repetitions",
            "2",
            "--n",
            "200",
            "--max-iter",
            "30",
            "--quiet",
            "-o",
            str(path),
        ]
    )
    assert args.run is _cli.run
    assert _cli.run(args) == 0
    out = capsys.readouterr().out
    assert "1 data sets x 2 repetitions" in out
    assert "| RND | 1 | 2 |" in out
    assert "paper (RND, |A|/|B| = 1): delta rule F = 0.492, F-Delta F = 0.666" in out
    data = json.loads(path.read_text())
    assert data["config"]["repetitions"] == 2 and len(data["cells"]) == 1


def test_json_flag_prints_the_results_as_json_as_in_the_other_subcommands(tmp_path, capsys):
    small = ["fdelta", "--types", "RND", "--ratios", "1", "--datasets", "1", "--repetitions", "2"]
    small += ["--n", "200", "--max-iter", "30", "--quiet", "--json", "-o", str(tmp_path / "r.json")]
    assert _cli.run(_parse(small)) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((tmp_path / "r.json").read_text())
    assert printed["config"]["repetitions"] == 2


def test_full_flag_sets_the_papers_size():
    args = _parse(["fdelta", "--full"])
    assert args.full and args.datasets is None
    assert _cli._PAPER == {"datasets": 20, "repetitions": 50}


def test_bad_options(capsys):
    with pytest.raises(SystemExit):
        _parse(["fdelta", "--ratios", "1,x"])
    with pytest.raises(SystemExit):
        _parse(["fdelta", "--types", "LS,ABC"])
    args = _parse(["fdelta", "--ratios", "0.01", "--n", "100", "--quiet"])
    assert _cli.run(args) == 2
    assert "needs at least 2 examples" in capsys.readouterr().err


class _FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True
