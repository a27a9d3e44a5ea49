"""Claims the README makes about the `tilefold` command that a new user checks first."""

from __future__ import annotations

import pytest

from tilefold import cli

EXAMPLE = "examples/evidence/issue_1789_unaligned_column.py"


@pytest.mark.parametrize("command", [["compile", EXAMPLE, "--emit", "ir"], ["run", EXAMPLE]])
def test_unknown_skip_pass_is_a_usage_error(command, capsys):
    # README: exit 1 for "bad command line, unknown pass / op / benchmark name" -- --skip-pass included
    code = cli.main([*command, "--skip-pass", "Bogus"])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE
    assert "unknown pass name in skip_passes: 'Bogus'" in err and "CanonicalizeTileSlice" in err
    assert "Traceback" not in err


def test_known_skip_pass_names_still_accepted(capsys):
    # both the pass name and the CLI name are accepted, as docs/backend.md says
    assert cli.main(["compile", EXAMPLE, "--emit", "ir", "--skip-pass", "CanonicalizeTileSlice",
                     "--skip-pass", "tile-and-bind-sub-block"]) == cli.EXIT_OK
    assert "pl.tile.slice" in capsys.readouterr().out
