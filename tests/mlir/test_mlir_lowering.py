"""tilefold.mlir: every lit input parses; AIV kernels lowered from HIVM MLIR simulate to numpy's answer with
TileAndBindSubBlock on and off; the decisions read back from the pass; located refusals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("xdsl", reason="the mlir extra (xdsl) is part of the dev install")

from xdsl.dialects import func  # noqa: E402

from tilefold.errors import TilefoldError  # noqa: E402
from tilefold.mlir import load_program  # noqa: E402
from tilefold.mlir.bind_sub_block import decide  # noqa: E402
from tilefold.mlir.opt import main, parse_chunk, print_module, split_chunks  # noqa: E402
from tilefold.testing import run_and_compare  # noqa: E402

LIT = Path(__file__).resolve().parents[1] / "lit" / "mlir"
OFF = {"enable_auto_bind_sub_block": False}


def _function(path: Path, name: str):
    for chunk in split_chunks(path.read_text(), True):
        if f"@{name}(" in chunk.text:
            module = parse_chunk(chunk, str(path))
            fn = next(op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == name)
            return fn, chunk
    raise AssertionError(name)


@pytest.mark.parametrize("path", sorted(LIT.glob("*.mlir")), ids=lambda p: p.name)
def test_every_good_chunk_parses_and_prints_back(path):
    for chunk in split_chunks(path.read_text(), True):
        if "@broken" in chunk.text:
            continue
        text = print_module(parse_chunk(chunk, str(path)))
        again = print_module(parse_chunk(type(chunk)(text, 0), "<printed>"))
        assert again == text  # the printed form reads back to itself


def _rng_inputs(program, seed=0):
    rng = np.random.default_rng(seed)
    fn = program.functions[0]
    out = {}
    for p in fn.params:
        if not hasattr(p.type, "shape"):  # a scalar parameter: a loop count
            out[p.name] = 3
            continue
        shape = tuple(int(getattr(s, "value", s)) for s in p.type.shape)
        if p.type.dtype.is_int:  # small non-negative integers: valid gather indices of any source here
            out[p.name] = rng.integers(0, 8, shape).astype(np.int32)
        else:
            out[p.name] = rng.standard_normal(shape).astype(np.float32)
    return out


CASES = {  # kernel: numpy reference on the named inputs
    ("split_elementwise.mlir", "scale_shift"): lambda i: {"dst": i["src"] * np.float32(2.5) + i["src"]},
    ("constructs.mlir", "row_normalise"): lambda i: {"dst": i["src"] - i["src"].max(axis=1, keepdims=True)},
    ("constructs.mlir", "column_sum"): lambda i: {"dst": i["src"].sum(axis=0, keepdims=True)},
    ("constructs.mlir", "row_blocks"): lambda i: {"dst": np.maximum(i["src"], 0)},
    ("limit.mlir", "odd_rows"): lambda i: {"dst": np.abs(i["src"])},
    ("constructs.mlir", "doubling"): lambda i: {"dst": i["src"] * np.float32(2 ** i["n"])},
    ("constructs.mlir", "column_window"): lambda i: {"dst": np.exp(i["src"][:, 64:])},
    ("constructs.mlir", "choose"): lambda i: {"dst": np.exp(i["src"]) if i["flag"] > 0 else np.abs(i["src"])},
    ("constructs.mlir", "block_views"): lambda i: {"out": i["x"] * i["y"]},
    ("constructs.mlir", "tensor_form"): lambda i: {"dst": (i["src"] + np.float32(1)) * i["col"]},
    ("clipped_stores.mlir", "window_at_run_time_offset"): lambda i: {"o": _window(i["o"], np.exp(i["a"]), 3, 19)},
    ("clipped_stores.mlir", "first_element"): lambda i: {"o": (i["a"] + i["a"])[:, :1]},
    ("element_loops.mlir", "double_first_column"): lambda i: {"dst": np.exp(i["x"]) * np.array([2] + [1] * 63,
                                                                                              np.float32)},
    ("element_loops.mlir", "scale_by_first"): lambda i: {"dst": i["x"] * i["x"][0, 0]},
    ("index_ops.mlir", "add_ramp"): lambda i: {"dst": i["x"] + 5 + 3 * np.arange(64, dtype=np.int32)[None, :]},
    ("index_ops.mlir", "pick_columns"): lambda i: {"dst": np.take_along_axis(i["x"], i["i"], axis=1)},
    ("compare_select.mlir", "clamp_below"): lambda i: {"dst": np.maximum(i["x"], i["floor"])},
    ("clipped_stores.mlir", "row_window"): lambda i: {"o": _window(i["o"], np.abs(i["a"]), 40, 56)},
    ("clipped_stores.mlir", "windows_in_a_loop"): lambda i: {"o": _window(i["o"], np.exp(i["a"]), 0, 48)},
    ("clipped_stores.mlir", "windows_into_one_place"): lambda i: {"o": np.exp(i["a"][:, 32:48])},
}


def _window(initial, value, lo, hi):
    """``initial`` with its window [lo, hi) on the first split axis replaced by ``value``'s."""
    out = np.array(initial, copy=True)
    if out.shape[0] == 1:  # a rank-1 vector is the tile [1, n]: the window is on its columns
        out[:, lo:hi] = value[:, lo:hi]
    else:
        out[lo:hi] = value[lo:hi]
    return out


@pytest.mark.parametrize("case", sorted(CASES), ids=lambda c: c[1])
def test_pass_on_and_off_simulate_to_numpys_answer(case, tmp_path):
    fname, name = case
    fn, chunk = _function(LIT / fname, name)
    path = tmp_path / "k.mlir"
    path.write_text(chunk.text)
    program = load_program(str(path), name)
    inputs = _rng_inputs(program)
    want = CASES[case](inputs)
    results = {}
    for label, options in (("on", {}), ("off", OFF)):
        report = run_and_compare(program, {k: getattr(v, "copy", lambda v=v: v)() for k, v in inputs.items()},
                                 options=options)
        assert report.matches, (label, report.details)
        for k, v in want.items():
            np.testing.assert_allclose(report.outputs[k], v, rtol=1e-5, atol=1e-5)
        results[label] = report.outputs
    for k in want:
        np.testing.assert_allclose(results["on"][k], results["off"][k], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("flag,scale", [(5, 2.0), (0, 0.5), (-3, 0.5)])
def test_scalar_select_picks_the_operand_the_condition_names(flag, scale, tmp_path):
    """``arith.select`` of two scalars (lowered as an if / yield): the flag chooses the scale, pass on and off."""
    fn, chunk = _function(LIT / "constructs.mlir", "select_scale")
    path = tmp_path / "k.mlir"
    path.write_text(chunk.text)
    program = load_program(str(path), "select_scale")
    src = np.random.default_rng(flag + 7).standard_normal((16, 64)).astype(np.float32)
    for options in ({}, OFF):
        report = run_and_compare(program, {"src": src.copy(), "dst": np.zeros_like(src), "flag": flag},
                                 options=options)
        assert report.matches, report.details
        np.testing.assert_array_equal(report.outputs["dst"], src * np.float32(scale))


def test_decisions_read_back_from_the_pass():
    fn, chunk = _function(LIT / "constructs.mlir", "column_sum")
    d = decide(fn, "constructs.mlir", chunk.text, chunk.line_offset)
    assert d.axis == 1  # the reduction keeps rows whole
    fn, chunk = _function(LIT / "limit.mlir", "odd_rows")
    d = decide(fn, "limit.mlir", chunk.text, chunk.line_offset)
    assert d.axis is None and "odd" in d.reason


def test_unlowerable_op_is_a_located_error_for_run(tmp_path):
    fn, chunk = _function(LIT / "limit.mlir", "not_lowered")
    path = tmp_path / "g.mlir"
    path.write_text(chunk.text)
    with pytest.raises(TilefoldError) as info:
        load_program(str(path))
    assert "hivm.hir.vsort" in info.value.message
    assert info.value.span is not None and info.value.span.line == chunk.text.splitlines().index(
        next(line for line in chunk.text.splitlines() if line.lstrip().startswith("hivm.hir.vsort"))) + 1


def test_mlir_opt_options_and_exit_codes(tmp_path, capsys):
    src = LIT / "split_elementwise.mlir"
    assert main([str(src), "--hivm-bind-sub-block", "--split-input-file"]) == 0
    out = capsys.readouterr().out
    assert out.count("// -----") == 2 and "{tiled_op}" in out
    assert main([str(src), "-hivm-bind-sub-block=enable-tile=false", "-split-input-file"]) == 0
    out = capsys.readouterr().out
    assert "tiled_op" not in out and "limit_sub_block_id0" in out
    assert main([str(src), "-no-such-option"]) == 1
    assert "unknown option" in capsys.readouterr().err


def test_cli_mlir_opt_and_run(tmp_path, capsys):
    from tilefold.cli import main as cli_main

    src = LIT / "split_elementwise.mlir"
    assert cli_main(["mlir-opt", str(src), "-hivm-bind-sub-block", "-split-input-file"]) == 0
    assert "map_for_to_forall" in capsys.readouterr().out
    fn, chunk = _function(src, "scale_shift")
    path = tmp_path / "k.mlir"
    path.write_text(chunk.text)
    assert cli_main(["run", str(path)]) == 0
    out = capsys.readouterr().out
    assert "MATCH" in out and "split 1:2 on axis 0" in out
