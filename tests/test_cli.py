"""The `tilefold` command: outputs, exit codes (0 ok, 1 usage, 2 user error, 3 mismatch, 4 internal) and
one-paragraph errors without tracebacks."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest

import tilefold.language as pl
from tilefold import cli
from tilefold.cli import bench as cli_bench

GOOD = '''
import tilefold.language as pl


@pl.program
class Example:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 128])
        hi = pl.tile.slice(t, [16, 64], [0, 64])
        y = pl.tile.muls(hi, 0.5)
        out = pl.store(y, [0, 0], out)
        return out
'''

BAD_OP = GOOD.replace("pl.tile.muls(hi, 0.5)", "pl.tile.frobnicate(hi)")
THREE_D = GOOD.replace("[[16, 128], pl.FP32]", "[[2, 16, 128], pl.FP32]").replace(
    "pl.tile.load(x, [0, 0], [16, 128])", "pl.tile.load(x, [0, 0, 0], [2, 16, 128])").replace(
    "hi = pl.tile.slice(t, [16, 64], [0, 64])\n", "hi = pl.tile.exp(t)\n").replace(
    "y = pl.tile.muls(hi, 0.5)", "y = pl.tile.slice(pl.tile.reshape(hi, [32, 128]), [16, 64], [0, 0])")


@pytest.fixture
def good(tmp_path) -> Path:
    p = tmp_path / "good.py"
    p.write_text(GOOD)
    return p


def run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------------------------------------
# opt
# ------------------------------------------------------------------------------------------------


def test_opt_prints_ir_that_parses_back_equal(good, capsys):
    from tilefold import ir

    code, out, err = run(["opt", good], capsys)
    assert code == 0 and err == ""
    ir.assert_structural_equal(pl.parse_file(str(good)), pl.parse(out))


def test_opt_output_file(good, tmp_path, capsys):
    target = tmp_path / "out.py"
    code, out, _ = run(["opt", good, "-o", target], capsys)
    assert code == 0 and out == ""
    assert "class Example" in target.read_text()


def test_opt_print_after_all(good, capsys):
    code, out, _ = run(["opt", good, "--passes", "flatten-tile-nd-to-2d,test-nested-seq", "--print-after-all"],
                       capsys)
    assert code == 0
    first = out.index("# ----- IR after FlattenTileNdTo2D (flatten-tile-nd-to-2d) (unchanged) -----")
    second = out.index("# ----- IR after TestNestedSeq (test-nested-seq) -----")
    assert first < second
    assert out.count("class Example") == 2  # two dumps; the last one is the final IR, not printed again


def test_opt_verify_clean_program(good, capsys):
    code, out, err = run(["opt", good, "--verify", "--round-trip"], capsys)
    assert code == 0 and "class Example" in out and err == ""


@pytest.mark.parametrize("fault, prop", [
    ("test-duplicate-def", "SSAForm"),
    ("test-use-before-def", "UseAfterDef"),
    ("test-nested-seq", "NormalizedStmtStructure"),
    ("test-wrong-call-type", "TypeChecked"),
])
def test_opt_verify_catches_fault_injection(good, capsys, fault, prop):
    code, out, err = run(["opt", good, "--passes", fault, "--verify"], capsys)
    assert code == 2
    assert f"which must produce {prop}): {prop} violated in function 'kernel'" in err
    assert "hint:" in err and "Traceback" not in err
    # without --verify nothing checks
    code, out, err = run(["opt", good, "--passes", fault], capsys)
    assert code == 0


def test_opt_verify_input_properties(tmp_path, capsys):
    p = tmp_path / "three_d.py"
    p.write_text(THREE_D)
    code, _, err = run(["opt", p, "--verify"], capsys)
    assert code == 2
    assert "input program: TileOps2D violated in function 'kernel'" in err
    assert f"{p}:10:9" in err  # the location of the first rank-3 tile
    code, _, _ = run(["opt", p, "--verify-properties", "SSAForm,IncoreTileOps"], capsys)
    assert code == 0
    code, out, _ = run(["opt", p, "--passes", "flatten-tile-nd-to-2d", "--verify-properties", "TileOps2D"], capsys)
    assert code == 0 and "pl.Tile[[32, 128]" in out


def test_opt_bad_input_is_one_paragraph_without_traceback(tmp_path, capsys):
    p = tmp_path / "bad.py"
    p.write_text(BAD_OP)
    code, out, err = run(["opt", p], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"{p}:12:")
    assert "error:" in err and "frobnicate" in err
    assert "Traceback" not in err


def test_opt_missing_file(tmp_path, capsys):
    code, _, err = run(["opt", tmp_path / "nope.py"], capsys)
    assert code == 2
    assert "cannot read" in err and "no such file" in err and "hint:" in err


def test_usage_errors_exit_1(good, capsys):
    code, _, err = run(["opt", good, "--passes", "no-such-pass"], capsys)
    assert code == 1 and "unknown pass 'no-such-pass'" in err
    code, _, err = run(["opt", good, "--verify-properties", "Bogus"], capsys)
    assert code == 1 and "unknown IR property 'Bogus'" in err
    with pytest.raises(SystemExit) as info:
        cli.main(["opt"])  # missing FILE
    assert info.value.code == 1
    with pytest.raises(SystemExit) as info:
        cli.main(["nonsense"])
    assert info.value.code == 1


@pytest.mark.parametrize("option,value,what", [
    ("--passes", ",,,", "names nothing"),
    ("--passes", "", "names nothing"),
    ("--passes", "tile-and-bind-sub-block,,init-mem-ref", "has an empty item (item 2 of 3)"),
    ("--passes", "init-mem-ref,", "has an empty item (item 2 of 2)"),
    ("--verify-properties", ",", "names nothing"),
    ("--verify-properties", "SSAForm,,TileOps2D", "has an empty item (item 2 of 3)"),
])
def test_an_empty_or_malformed_name_list_is_a_usage_error(good, capsys, option, value, what):
    """A list option with an empty item is refused (it ran fewer or no passes / checks without saying so), with a
    hint on how to name the items."""
    code, out, err = run(["opt", good, option, value], capsys)
    assert code == 1 and out == ""
    assert f"tilefold opt: error: {option} {value!r} {what}" in err
    assert ("`tilefold passes` lists their CLI names" if option == "--passes" else "known: SSAForm,") in err
    code, out, _ = run(["opt", good, option, "init-mem-ref" if option == "--passes" else "SSAForm"], capsys)
    assert code == 0 and "kernel" in out


def _patch_pass(monkeypatch, exc: Exception):
    from tilefold.passes import pipeline
    from tilefold.passes.base import program_pass

    real = pipeline.get_pass

    def get_pass(name, **options):
        if name == "explode":
            def boom(program):
                raise exc
            return program_pass("Explode", boom)
        return real(name, **options)

    monkeypatch.setattr(pipeline, "get_pass", get_pass)


def test_value_error_from_a_pass_is_a_user_error(good, capsys, monkeypatch):
    _patch_pass(monkeypatch, ValueError("tile.slice window [0:16, 8:24] is not contiguous in L0C"))
    code, _, err = run(["opt", good, "--passes", "explode"], capsys)
    assert code == 2
    assert err.strip() == "error: tile.slice window [0:16, 8:24] is not contiguous in L0C"


def test_internal_error_has_no_traceback_unless_asked(good, capsys, monkeypatch):
    _patch_pass(monkeypatch, RuntimeError("kaboom"))
    code, _, err = run(["opt", good, "--passes", "explode"], capsys)
    assert code == 4
    assert "internal error: RuntimeError: kaboom" in err and "--traceback" in err
    assert "Traceback" not in err
    with pytest.raises(RuntimeError, match="kaboom"):
        cli.main(["--traceback", "opt", str(good), "--passes", "explode"])


def test_remarks_flag(good, capsys):
    code, out, _ = run(["opt", good, "--passes", "canonicalize-tile-slice", "--remarks"], capsys)
    assert code == 0
    ir_end = out.index("remark:")
    assert "class Example" in out[:ir_end]
    assert "remark: [CanonicalizeTileSlice] kernel:" in out


def test_remarks_exposed_on_the_pass_object_are_printed(good, capsys, monkeypatch):
    from tilefold.passes import pipeline
    from tilefold.passes.base import program_pass
    from tilefold.passes.remarks import Remark

    real = pipeline.get_pass

    def get_pass(name, **options):
        if name == "chatty":
            p = program_pass("Chatty", lambda prog: prog)
            p.remarks = [Remark("Chatty", "kernel", "note", "hello", {"n": 1})]
            return p
        return real(name, **options)

    monkeypatch.setattr(pipeline, "get_pass", get_pass)
    code, out, _ = run(["opt", good, "--passes", "chatty", "--remarks"], capsys)
    assert code == 0 and "remark: [Chatty] kernel: note: hello {n=1}" in out


def test_unknown_target_is_a_user_error(good, capsys):
    code, _, err = run(["opt", good, "--passes", "canonicalize-tile-slice", "--target", "Ascend000"], capsys)
    assert code == 2 and "unknown target" in err


# ------------------------------------------------------------------------------------------------
# compile / run / bench / demo
# ------------------------------------------------------------------------------------------------


def test_a_missing_project_module_is_an_internal_error(capsys, monkeypatch):
    # tilefold ships whole: a module of its own that does not import is a bug, not the user's problem
    monkeypatch.setitem(sys.modules, "tilefold.demo", None)
    code, _, err = run(["demo"], capsys)
    assert code == 4
    assert err.startswith("internal error: ModuleNotFoundError") and "tilefold bug" in err and "Traceback" not in err


def test_demo_calls_main(capsys, monkeypatch):
    fake = types.ModuleType("tilefold.demo")
    fake.main = lambda: print("demo ran") or 0
    monkeypatch.setitem(sys.modules, "tilefold.demo", fake)
    code, out, _ = run(["demo"], capsys)
    assert code == 0 and "demo ran" in out


def _fake_testing(monkeypatch, matches: bool, fault=None):
    calls = {}

    class Report:
        def __init__(self):
            self.matches = matches
            self.fault = fault
            self.max_abs_error = float("inf") if fault is not None else (0.0 if matches else 0.75)
            self.first_mismatch = None if matches or fault is not None else (3, 1)
            self.mismatch_output = None if matches or fault is not None else "out"
            self.cycles = 1234.0
            self.unit_cycles = {"core0.aiv0": 1234.0, "core0.aiv1": 1200.0}

    def run_and_compare(program, inputs, **kwargs):
        calls["inputs"] = inputs
        calls["kwargs"] = kwargs
        return Report()

    import tilefold.testing

    monkeypatch.setattr(tilefold.testing, "run_and_compare", run_and_compare)
    return calls


def test_run_prints_summary_and_passes_options(good, capsys, monkeypatch):
    calls = _fake_testing(monkeypatch, matches=True)
    code, out, _ = run(["run", good, "--inputs", "random", "--skip-pass", "CanonicalizeTileSlice",
                        "--codegen", "faithful", "--block-dim", "2", "--no-enable-auto-bind-sub-block",
                        "--target", "Ascend910C"], capsys)
    assert code == 0
    assert calls["kwargs"] == {"skip_passes": ("CanonicalizeTileSlice",), "codegen": "faithful",
                               "options": {"enable_auto_bind_sub_block": False}, "block_dim": 2,
                               "target": "Ascend910C"}
    assert set(calls["inputs"]) == {"x", "out"}
    assert calls["inputs"]["x"].shape == (16, 128) and not calls["inputs"]["out"].any()
    assert "result           MATCH" in out
    # cycles are exact integers, never %.3g
    assert "cycles           1234\n" in out and "unit cycles      core0.aiv0=1234, core0.aiv1=1200" in out
    assert "e+03" not in out


def test_run_mismatch_exit_code(good, capsys, monkeypatch):
    _fake_testing(monkeypatch, matches=False)
    code, out, _ = run(["run", good], capsys)
    assert code == 3
    assert "MISMATCH" in out and "first mismatch   out[3, 1]" in out and "max abs error    0.75" in out


def test_run_fault_shows_dash_for_max_abs_error(good, capsys, monkeypatch):
    _fake_testing(monkeypatch, matches=False, fault=RuntimeError("trap"))
    code, out, _ = run(["run", good], capsys)
    assert code == 3
    assert "DEVICE FAULT" in out and "max abs error    -\n" in out and "inf" not in out


def test_run_inputs_from_npz(good, tmp_path, capsys, monkeypatch):
    import numpy as np

    calls = _fake_testing(monkeypatch, matches=True)
    npz = tmp_path / "in.npz"
    np.savez(npz, x=np.ones((16, 128), np.float32))
    code, _, _ = run(["run", good, "--inputs", npz], capsys)
    assert code == 0 and calls["inputs"]["x"].sum() == 16 * 128
    np.savez(npz, y=np.ones((16, 128), np.float32))
    code, _, err = run(["run", good, "--inputs", npz], capsys)
    assert code == 2 and "has no value for parameter(s) x" in err


def test_run_for_real(good, capsys):
    code, out, err = run(["run", good, "--inputs", "random"], capsys)
    assert code == 0, err
    assert "MATCH" in out


def test_compile_emits_pto_and_ir(good, capsys):
    code, out, err = run(["compile", good, "--emit", "pto"], capsys)
    assert code == 0, err
    assert "tload" in out
    code, out, err = run(["compile", good, "--emit", "ir", "--skip-pass", "TileAndBindSubBlock"], capsys)
    assert code == 0, err
    assert "class Example" in out and "get_subblock_idx" not in out


def test_bench_runs_scripts(tmp_path, capsys, monkeypatch):
    bench_dir = tmp_path / "benchmarks"
    bench_dir.mkdir()
    (bench_dir / "hello.py").write_text("print('hello from bench')\n")
    (bench_dir / "fails.py").write_text("raise SystemExit(3)\n")
    monkeypatch.setattr(cli_bench, "benchmarks_dir", lambda: bench_dir)
    code = cli.main(["bench", "hello"])
    assert code == 0 and "hello from bench" in capsys.readouterr().out
    assert cli.main(["bench", "fails"]) == 2
    assert cli.main(["bench", "nope"]) == 1
    assert "unknown benchmark(s) nope" in capsys.readouterr().err


def test_bench_passes_names_and_plot_to_the_runner(capsys, monkeypatch):
    import tilefold.bench

    seen = []
    monkeypatch.setattr(tilefold.bench, "run_benchmarks",
                        lambda names, root, argv=None: seen.append((names, root, argv)) or 0)
    assert cli.main(["bench", "a", "b"]) == 0
    assert cli.main(["bench", "a", "--plot"]) == 0
    assert seen == [(["a", "b"], cli.benchmarks_dir(), None), (["a"], cli.benchmarks_dir(), ["--plot"])]


def test_bench_outside_a_checkout_is_a_user_error(capsys, monkeypatch):
    monkeypatch.setattr(cli_bench, "benchmarks_dir", lambda: None)
    assert cli.main(["bench"]) == 2
    err = capsys.readouterr().err
    assert "no benchmarks/ directory next to the tilefold sources" in err and "hint:" in err


def test_passes_lists_catalogue(capsys):
    code, out, _ = run(["passes"], capsys)
    assert code == 0 and "canonicalize-tile-slice" in out and "test-duplicate-def" in out


# ------------------------------------------------------------------------------------------------
# as a process
# ------------------------------------------------------------------------------------------------


def test_python_dash_m_and_exit_status(good, tmp_path):
    ok = subprocess.run([sys.executable, "-m", "tilefold", "opt", str(good)], capture_output=True, text=True)
    assert ok.returncode == 0 and "class Example" in ok.stdout
    bad = tmp_path / "bad.py"
    bad.write_text(BAD_OP)
    res = subprocess.run([sys.executable, "-m", "tilefold", "opt", str(bad)], capture_output=True, text=True)
    assert res.returncode == 2
    assert "error:" in res.stderr and "Traceback" not in res.stderr
    script = Path(sys.executable).parent / "tilefold"
    if script.exists():
        res = subprocess.run([str(script), "opt", str(bad)], capture_output=True, text=True)
        assert res.returncode == 2 and "Traceback" not in res.stderr


def test_undecodable_file_is_a_user_error(tmp_path, capsys):
    p = tmp_path / "garbage.py"
    p.write_bytes(b"\xcc\xff\x00\x81" * 10)
    code, _, err = run(["opt", p], capsys)
    assert code == 2 and err.startswith(f"error: cannot read '{p}'") and "Traceback" not in err
    code, _, err = run(["opt", tmp_path], capsys)
    assert code == 2 and "not a regular file" in err


# ------------------------------------------------------------------------------------------------
# first-user review: default pipeline, remarks, run table, --set, ops, bench threads
# ------------------------------------------------------------------------------------------------

SCALAR = GOOD.replace("out: pl.Out[", "scale: pl.Scalar[pl.FP32],\n               out: pl.Out[").replace(
    "pl.tile.muls(hi, 0.5)", "pl.tile.muls(hi, scale)")


def test_opt_passes_default_runs_the_default_pipeline(good, capsys):
    from tilefold.passes.pipeline import DEFAULT_ORDER, get_pass

    code, out, err = run(["opt", good, "--passes", "default", "--print-after-all"], capsys)
    assert code == 0, err
    headers = [line for line in out.splitlines() if line.startswith("# ----- IR after")]
    expected = [f"{get_pass(n).name} ({n})" for n in DEFAULT_ORDER]
    assert [h.split("IR after ", 1)[1].split(")")[0] + ")" for h in headers] == expected
    # the pipeline options reach the passes
    code, out_off, err = run(["opt", good, "--passes", "default", "--no-enable-auto-bind-sub-block"], capsys)
    code_on, out_on, _ = run(["opt", good, "--passes", "default"], capsys)
    assert code == 0 and code_on == 0, err
    assert "tiled_op" in out_on and "tiled_op" not in out_off  # off splits nothing (stores are only guarded)


def test_opt_print_after_all_without_passes_prints_once(good, capsys):
    code, out, _ = run(["opt", good, "--print-after-all"], capsys)
    assert code == 0 and out.count("class Example") == 1


def test_compile_and_run_remarks(good, capsys):
    code, out, err = run(["compile", good, "--remarks"], capsys)
    assert code == 0, err
    assert "[CanonicalizeTileSlice]" in out and "[TileAndBindSubBlock]" in out
    code, out, _ = run(["compile", good], capsys)
    assert "remark:" not in out
    code, out, err = run(["run", good, "--remarks"], capsys)
    assert code == 0, err
    assert out.index("result ") < out.index("remark: [TileAndBindSubBlock]")


def test_run_reports_scalars_and_sub_block_split(tmp_path, capsys):
    src = tmp_path / "scalar.py"
    src.write_text(SCALAR)
    code, out, err = run(["run", src, "--set", "scale=2.5"], capsys)
    assert code == 0, err
    assert "scalars          scale=2.5\n" in out
    assert "sub-block split  kernel: split 1:2 on axis" in out
    code, out, err = run(["run", src, "--no-enable-auto-bind-sub-block"], capsys)
    assert code == 0, err
    assert "(random)" in out and "kernel: not split" in out


def test_run_set_unknown_name_lists_scalar_params(tmp_path, capsys):
    src = tmp_path / "scalar.py"
    src.write_text(SCALAR)
    code, _, err = run(["run", src, "--set", "scal=1"], capsys)
    assert code == 2
    assert "has no scalar parameter 'scal'" in err and "scalar parameters of kernel are: scale" in err
    code, _, err = run(["run", src, "--set", "x=1"], capsys)  # a tensor is not a scalar parameter
    assert code == 2 and "no scalar parameter 'x'" in err


def test_ops_lists_every_registered_op(capsys):
    from tilefold.ops.registry import all_ops

    code, out, _ = run(["ops"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert "signature" not in out  # the compact list: one line per op, no full entries
    for name, op in all_ops().items():
        line = next(ln for ln in lines if ln.split() and ln.split()[0] == name)
        if op.pto:
            assert op.pto in line.split()
    code, out, _ = run(["ops", "slice"], capsys)
    assert code == 0 and out.count("signature") == 1
    assert "tile.slice(tile: tile, shape: tuple, offset: tuple" in out
    assert "kind        view" in out and "inherit (from operand 0)" in out and "zero-copy view" in out
    code, _, err = run(["ops", "frobnicate"], capsys)
    assert code == 1 and "unknown op" in err
    code, _, err = run(["ops", "tile.lod"], capsys)
    assert code == 1 and "did you mean tile.load" in err


def test_docs_ops_md_is_up_to_date():
    from tilefold.ops.registry import all_ops

    page = Path(__file__).resolve().parents[1] / "docs" / "ops.md"
    expected = cli.ops_markdown(dict(sorted(all_ops().items())))
    assert page.read_text() == expected, "regenerate with: python -m tilefold.cli ops --markdown > docs/ops.md"


def test_bench_runs_with_single_threaded_blas(capsys, monkeypatch):
    import os

    import tilefold.bench

    seen = {}
    monkeypatch.setattr(tilefold.bench, "run_benchmarks", lambda names, root, argv=None: seen.update(
        {v: os.environ.get(v) for v in cli.BLAS_THREAD_VARS}) or 0)
    for var in cli.BLAS_THREAD_VARS:
        monkeypatch.setenv(var, "8")
    assert cli.main(["bench", "x"]) == 0
    assert seen == {var: "1" for var in cli.BLAS_THREAD_VARS}


def test_help_documents_exit_codes(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    for line in ("0  success", "1  usage error", "2  user error", "3  tilefold run: mismatch", "4  internal error"):
        assert line in out
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    out = capsys.readouterr().out
    assert "--max-steps" in out and "--entry" in out and "faithful: lower like upstream" in out


def test_bench_ignores_benchmarks_of_the_current_directory(tmp_path, monkeypatch, capsys):
    """A benchmarks/ in the working directory is never run: only the checkout's own."""
    (tmp_path / "benchmarks").mkdir()
    marker = tmp_path / "ran"
    (tmp_path / "benchmarks" / "evil.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    monkeypatch.chdir(tmp_path)
    code = cli.main(["bench", "evil"])
    assert code == 1 and not marker.exists()
    assert cli.benchmarks_dir() == Path(cli_bench.__file__).resolve().parents[3] / "benchmarks"


def test_plain_output_when_piped(good, capsys, monkeypatch):
    """Piped (capsys is not a terminal) or NO_COLOR: plain text, no rich box drawing or escape codes."""
    monkeypatch.setenv("NO_COLOR", "1")
    code, out, _ = run(["ops"], capsys)
    assert code == 0 and "\x1b[" not in out and "┃" not in out and out.splitlines()[2].startswith("op ")
