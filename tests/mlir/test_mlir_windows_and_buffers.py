"""The chunks of ``tests/lit/mlir/windows_and_buffers.mlir`` (insert_slice, buffers written in loops / ifs / while
loops, byte views, windows of local buffers, scope.scope) simulated with the sub-block pass on and off, each against
a numpy reference written here; and the decisions (split / rolled back) read back from the pass."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("xdsl", reason="the mlir extra (xdsl) is part of the dev install")

from xdsl.dialects import func  # noqa: E402

from tilefold.mlir import load_program  # noqa: E402
from tilefold.mlir.bind_sub_block import decide  # noqa: E402
from tilefold.mlir.opt import parse_chunk, split_chunks  # noqa: E402
from tilefold.testing import run_and_compare  # noqa: E402

FILE = Path(__file__).resolve().parents[1] / "lit" / "mlir" / "windows_and_buffers.mlir"
N = 3  # every index argument (loop counts, offsets)


def _accumulate(a):
    acc = a * np.float32(N)
    return np.exp(acc) if N > 1 else acc


def _patch(a, o):
    out = np.ones((8, 64), np.float32)
    out[N:N + 4, 32:] = a
    return out


def _right_half(a):
    out = np.zeros((16, 64), np.float32)
    out[:, 32:] = np.abs(a)
    return out


def _scoped(a):
    out = np.array(a, copy=True)
    out[:, 32:] = np.exp(a[:, :32])
    return out


def _padded(a):
    out = np.full((16, 32), -1.0, np.float32)
    out[:, 1:31] = a
    return out


def _first_rows(a, o, n):
    out = np.array(o, copy=True)
    out[:n] = np.abs(a[:n])
    return out


CASES = {  # name: (numpy reference of the output from the inputs, split axis or None)
    "block_into_wider": (lambda i: np.exp(i["a"]), 0),
    "rows_one_by_one": (lambda i: np.abs(i["a"]), 1),
    "patch_in_corner": (lambda i: _patch(i["a"], i["o"]), 0),
    "accumulate_in_place": (lambda i: _accumulate(i["a"]), 0),
    "square_while": (lambda i: i["a"] ** (2 ** N), 0),
    "two_views": (lambda i: np.exp(i["a"].astype(np.float32)), 0),
    "right_half_of_buffer": (lambda i: _right_half(i["a"]), 0),
    "scoped_halves": (lambda i: _scoped(i["a"]), 0),
    "padded_rows": (lambda i: _padded(i["a"]) ** 2, 0),
    "read_window": (lambda i: np.exp(i["a"][:, 32:]), 0),
    "blocks_by_ceildiv": (lambda i: _first_rows(i["a"], i["o"], 5), 1),
    "rows_in_loop": (lambda i: np.exp(i["a"]), 1),
}


def _chunk(name: str):
    for chunk in split_chunks(FILE.read_text(), True):
        if f"@{name}(" in chunk.text:
            return chunk
    raise AssertionError(name)


def _inputs(program, name):
    rng = np.random.default_rng(7)
    out = {}
    for p in program.functions[0].params:
        if not hasattr(p.type, "shape"):
            out[p.name] = N
            continue
        shape = tuple(int(getattr(s, "value", s)) for s in p.type.shape)
        x = rng.uniform(-1.0, 1.0, shape) if name != "square_while" else rng.uniform(0.5, 1.2, shape)
        out[p.name] = x.astype(np.float16 if p.type.dtype.name == "FP16" else np.float32)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_pass_on_and_off_match_numpy(name, tmp_path):
    chunk = _chunk(name)
    path = tmp_path / "k.mlir"
    path.write_text(chunk.text)
    program = load_program(str(path), name)
    inputs = _inputs(program, name)
    ref, _ = CASES[name]
    want = ref(inputs)
    out_name = program.functions[0].params[1].name
    tol = 2e-3 if want.dtype == np.float16 or inputs[out_name].dtype == np.float16 else 1e-5
    results = {}
    for label, options in (("on", {}), ("off", {"enable_auto_bind_sub_block": False})):
        report = run_and_compare(program, {k: getattr(v, "copy", lambda v=v: v)() for k, v in inputs.items()},
                                 options=options)
        assert report.matches, (label, report.details)
        got = np.asarray(report.outputs[out_name], np.float32)
        np.testing.assert_allclose(got, np.asarray(want, np.float32).reshape(got.shape), rtol=tol, atol=tol)
        results[label] = got
    np.testing.assert_array_equal(results["on"], results["off"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_pass_decides_as_the_lit_file_says(name):
    chunk = _chunk(name)
    module = parse_chunk(chunk, str(FILE))
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    d = decide(fn, str(FILE), chunk.text, chunk.line_offset)
    assert d.axis == CASES[name][1], d.reason


def test_overlapping_views_are_a_located_error(tmp_path):
    from tilefold.errors import TilefoldError

    chunk = _chunk("overlapping_views")
    path = tmp_path / "k.mlir"
    path.write_text(chunk.text)
    with pytest.raises(TilefoldError) as info:
        load_program(str(path), "overlapping_views")
    text = info.value.render()
    assert "k.mlir:" in text and "overlap" in text


def _max_exp(x):
    m = x.max(axis=1, keepdims=True)
    return m, np.exp(x - m).astype(np.float32)


def test_two_result_custom_op_split_and_whole_match_numpy(tmp_path):
    import tilefold

    lit = FILE.parent / "custom_ops.mlir"
    chunk = next(c for c in split_chunks(lit.read_text(), True) if "@two_results(" in c.text)
    path = tmp_path / "k.mlir"
    path.write_text(chunk.text)
    program = load_program(str(path), "two_results")
    module = parse_chunk(chunk, str(lit))
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    assert decide(fn, str(lit), chunk.text, chunk.line_offset).axis == 0  # the rows split
    x = np.random.default_rng(3).standard_normal((16, 32)).astype(np.float32)
    calls = []

    def kernel(t):
        calls.append(t.shape)
        return _max_exp(t)

    tilefold.register_custom_op("user.max_exp", kernel, replace=True)
    try:
        for options in ({}, {"enable_auto_bind_sub_block": False}):
            report = run_and_compare(program, {"src": x.copy()}, options=options)
            assert report.matches, report.details
            np.testing.assert_allclose(report.outputs["mx"], x.max(axis=1, keepdims=True), rtol=1e-6)
            np.testing.assert_allclose(report.outputs["ex"], np.exp(x - x.max(axis=1, keepdims=True)), rtol=1e-5)
    finally:
        tilefold.unregister_custom_op("user.max_exp")
    assert (8, 32) in calls and (16, 32) in calls  # the split run calls the kernel on halves, the whole run once
