"""default_tile_pipeline validates its inputs: a misspelt pass name in ``skip_passes`` or an unknown
pipeline option is an error listing the known ones, never silently ignored."""

from pathlib import Path

import pytest

from tilefold.compiler import compile
from tilefold.errors import TilefoldError
from tilefold.passes.pipeline import DEFAULT_ORDER, default_tile_pipeline, known_options
from tilefold.testing import run_and_compare

EVIDENCE = Path(__file__).resolve().parents[2] / "examples" / "evidence"
KERNEL_2010 = EVIDENCE / "issue_2010_column_window.py"


def _names(passes):
    return [p.name for p in passes]


def test_misspelt_pass_name_is_rejected_with_the_known_names():
    with pytest.raises(TilefoldError) as exc:
        default_tile_pipeline("Ascend910B", skip_passes=("CanonicaliseTileSlice",))
    msg = str(exc.value)
    assert "'CanonicaliseTileSlice'" in msg
    for name in _names(default_tile_pipeline("Ascend910B")):
        assert name in exc.value.hint


@pytest.mark.parametrize("skip", ["CanonicalizeTileSlice", "canonicalize-tile-slice"])
def test_pass_and_cli_names_both_skip(skip):
    full = _names(default_tile_pipeline("Ascend910B"))
    names = _names(default_tile_pipeline("Ascend910B", skip_passes=(skip,)))
    assert "CanonicalizeTileSlice" in full and "CanonicalizeTileSlice" not in names
    assert len(names) == len(full) - DEFAULT_ORDER.count("canonicalize-tile-slice")


def test_a_single_string_is_one_name_not_its_characters():
    names = _names(default_tile_pipeline("Ascend910B", skip_passes="MemoryReuse"))  # type: ignore[arg-type]
    assert "MemoryReuse" not in names


def test_unknown_option_is_rejected_with_the_known_options():
    with pytest.raises(TilefoldError) as exc:
        default_tile_pipeline("Ascend910B", enable_auto_bind_subblock=False)
    assert "'enable_auto_bind_subblock'" in str(exc.value)
    for opt in ("enable_auto_bind_sub_block", "target", "tile_sizes"):
        assert opt in exc.value.hint


def test_known_options_are_the_pipeline_record_fields():
    from dataclasses import fields

    from tilefold.passes.pipeline import PIPELINE_OPTIONS, PipelineOptions

    names = [f.name for f in fields(PipelineOptions)]
    assert known_options() == sorted(names) == sorted(PIPELINE_OPTIONS)
    assert sorted(names) == ["custom_op_policy", "enable_auto_bind_sub_block", "target", "tile_sizes"]
    default_tile_pipeline("Ascend910B", enable_auto_bind_sub_block=False, tile_sizes=None)  # all accepted


def test_compile_and_harness_reject_a_misspelt_skip():
    import tilefold.language as pl

    prog = pl.parse_file(str(KERNEL_2010))
    with pytest.raises(TilefoldError, match="CanonicaliseTileSlice"):
        compile(prog, skip_passes=("CanonicaliseTileSlice",))
    with pytest.raises(TilefoldError, match="unknown option .enable_subblock. of the pass pipeline"):
        run_and_compare(prog, "random", options={"enable_subblock": False})


def test_cli_skip_pass_bogus_fails_with_the_message(capsys):
    from tilefold.cli import main

    rc = main(["compile", str(KERNEL_2010), "--emit", "pto", "--skip-pass", "Bogus"])
    err = capsys.readouterr().err
    assert rc != 0
    assert "unknown pass name in skip_passes: 'Bogus'" in err and "CanonicalizeTileSlice" in err
