"""Command-line values that are empty, absurd or the wrong kind of path: each is refused with a clear message
(never taken for "not given", never a hang), and the good spellings still work."""

from pathlib import Path

import pytest

from tilefold import cli
from tilefold.cli.arguments import MAX_BLOCK_DIM

GOOD = '''
import tilefold.language as pl


@pl.program
class Example:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        y = pl.tile.muls(t, 0.5)
        out = pl.store(y, [0, 0], out)
        return out
'''


@pytest.fixture
def good(tmp_path) -> Path:
    p = tmp_path / "good.py"
    p.write_text(GOOD)
    return p


def run(argv, capsys):
    """Exit code, stdout, stderr (argparse's usage errors exit through SystemExit)."""
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def fake_run(monkeypatch):
    """run_and_compare replaced by a recorder (the options are what is checked here, not the simulation)."""
    calls = {}

    class Report:
        matches, fault, max_abs_error, first_mismatch, mismatch_output = True, None, 0.0, None, None
        cycles, unit_cycles = 10.0, {}

    def run_and_compare(program, inputs, **kwargs):
        calls.update(kwargs)
        return Report()

    import tilefold.testing

    monkeypatch.setattr(tilefold.testing, "run_and_compare", run_and_compare)
    return calls


# -- --target ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "compile", "opt"])
@pytest.mark.parametrize("name", ["", "   "])
def test_an_empty_target_is_refused_with_the_known_targets(good, capsys, fake_run, command, name):
    code, out, err = run([command, good, "--target", name], capsys)
    assert code == 2, (out, err)
    assert "--target" in err and "names no target" in err
    for known in ("Ascend910B", "Ascend910C", "Ascend950"):
        assert known in err
    assert "target" not in fake_run  # nothing ran on the default chip instead


@pytest.mark.parametrize("command", ["run", "compile"])
def test_an_unknown_target_is_refused_with_the_known_targets(good, capsys, fake_run, command):
    code, _, err = run([command, good, "--target", "Ascend000"], capsys)
    assert code == 2 and "unknown target" in err and "Ascend910C" in err


def test_a_target_name_is_case_insensitive_and_canonical(good, capsys, fake_run):
    code, out, err = run(["run", good, "--target", "ascend910c"], capsys)
    assert code == 0, err
    assert fake_run["target"] == "Ascend910C"
    assert "Ascend910C" in out


def test_an_empty_pass_option_target_is_refused(good, capsys, fake_run):
    code, _, err = run(["run", good, "--pass-option", "target="], capsys)
    assert code == 2 and "target" in err


# -- --block-dim ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value, what", [("0", "not a positive number"), ("-3", "not a positive number"),
                                         (str(MAX_BLOCK_DIM + 1), "simulation budget"),
                                         ("100000", "simulation budget"), ("2.5", "not an integer"),
                                         ("", "not an integer")])
def test_block_dim_out_of_range_is_a_usage_error(good, capsys, fake_run, value, what):
    code, _, err = run(["run", good, "--block-dim", value], capsys)
    assert code == 1, err
    assert "--block-dim" in err and what in err and f"{MAX_BLOCK_DIM}" in err
    assert "block_dim" not in fake_run


def test_block_dim_at_the_bound_is_launched(good, capsys, fake_run):
    code, _, err = run(["run", good, "--block-dim", str(MAX_BLOCK_DIM)], capsys)
    assert code == 0, err
    assert fake_run["block_dim"] == MAX_BLOCK_DIM


# -- empty names and paths -----------------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["opt", "{good}", "-o", ""],
    ["opt", "{good}", "--kernel", ""],
    ["compile", "{good}", "--entry", ""],
    ["compile", "{good}", "--skip-pass", " "],
    ["run", "{good}", "--trace", ""],
    ["run", "{good}", "--timeline", ""],
    ["run", "{good}", "--dump-args", "1", "--dump-dir", ""],
    ["run", "{good}", "--inputs", ""],
    ["run", "{good}", "--kernels", ""],
    ["run", "{good}", "--entry", ""],
    ["run", "{good}", "--set", ""],
    ["run", "{good}", "--shape", ""],
    ["run", "{good}", "--pass-option", ""],
    ["ops", ""],
])
def test_an_empty_value_is_refused_not_taken_for_not_given(good, tmp_path, capsys, fake_run, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    code, out, err = run([a.format(good=good) for a in argv], capsys)
    assert code == 1, (out, err)
    assert "is empty" in err
    assert out == ""  # nothing printed as if the option had been left out
    assert not fake_run  # nothing ran
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.py"]  # and nothing written to the cwd


def test_a_directory_as_inputs_or_kernel_file_is_named_a_directory(good, tmp_path, capsys, fake_run):
    code, _, err = run(["run", good, "--inputs", tmp_path], capsys)
    assert code == 2 and "is a directory" in err
    code, _, err = run(["run", good, "--kernels", tmp_path], capsys)
    assert code == 2 and "is a directory" in err
