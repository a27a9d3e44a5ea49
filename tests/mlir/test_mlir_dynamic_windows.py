"""The chunks of ``tests/lit/mlir/dynamic_windows.mlir`` (run-time-size windows, windows of windows, reshaping
casts of local buffers, alloca, tensor constants) simulated with the sub-block pass on and off, each against a numpy
reference written here, at several run-time sizes (a full block, a tail, a one-element tail); and the refusals of
what is not lowered, each at the op's file:line:col."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("xdsl", reason="the mlir extra (xdsl) is part of the dev install")

from tilefold.errors import TilefoldError  # noqa: E402
from tilefold.mlir import load_program  # noqa: E402
from tilefold.mlir.opt import split_chunks  # noqa: E402
from tilefold.testing import run_and_compare  # noqa: E402

FILE = Path(__file__).resolve().parents[1] / "lit" / "mlir" / "dynamic_windows.mlir"


def _tail_block(i, s):
    out = i["o"].copy()
    sz = min(64, s["n"] - s["off"])
    out[s["off"]:s["off"] + sz] = np.exp(i["a"][s["off"]:s["off"] + sz])
    return out


def _tail_sum(i, s):
    sz = min(64, s["n"] - s["off"])
    return np.array([i["a"][s["off"]:s["off"] + sz].sum()], np.float32)


def _fresh_tail(i, s):
    out = i["o"].copy()
    sz = min(32, s["n"] - s["off"])
    out[s["off"]:s["off"] + sz] = np.abs(i["a"][s["off"]:s["off"] + sz])
    return out


def _tail_rows(i, s):
    out = np.full((8, 32), -1.0, np.float32)
    rows = min(8, s["m"] - s["r"])
    out[:rows] = i["a"][s["r"]:s["r"] + rows]
    return out


def _tail_cols(i, s):
    out = np.full((4, 16), 2.0, np.float32)
    cols = min(16, s["k"] - s["c"])
    out[:, :cols] = i["a"][:, s["c"]:s["c"] + cols]
    return out


def _insert_prefix(i, s):
    out = np.ones(32, np.float32)
    sz = min(s["n"], 32)
    out[:sz] = i["a"][:sz]
    return out


def _window_of_window(i, s):
    out = np.zeros((8, 32), np.float32)
    out[2:6, 8:24] = i["a"]
    return out


def _tensor_tail(i, s):
    out = i["o"].copy()
    sz = max(0, min(32, s["n"] - s["off"]))
    out[s["off"]:s["off"] + sz] = i["a"][s["off"]:s["off"] + sz]
    return out


def _loop_tail(i, s):
    out = i["o"].copy()
    n = max(0, min(s["n"], 64))
    out[:n] = np.abs(i["a"][:n])
    return out


CASES = {  # name: (reference(inputs, scalars), output name, scalar sets)
    "tail_block": (_tail_block, "o", [{"off": 0, "n": 64}, {"off": 150, "n": 200}, {"off": 199, "n": 200},
                                      {"off": 100, "n": 130}]),
    "tail_sum": (_tail_sum, "o", [{"off": 0, "n": 200}, {"off": 170, "n": 200}, {"off": 199, "n": 200}]),
    "fresh_tail": (_fresh_tail, "o", [{"off": 0, "n": 100}, {"off": 80, "n": 100}, {"off": 99, "n": 100}]),
    "tail_rows": (_tail_rows, "o", [{"r": 0, "m": 20}, {"r": 16, "m": 20}, {"r": 19, "m": 20}]),
    "tail_cols": (_tail_cols, "o", [{"c": 0, "k": 40}, {"c": 32, "k": 40}, {"c": 39, "k": 40}]),
    "insert_prefix": (_insert_prefix, "o", [{"n": 32}, {"n": 40}, {"n": 5}, {"n": 1}]),
    "window_of_window": (_window_of_window, "o", [{}]),
    "flat_cast": (lambda i, s: np.exp(i["a"]), "o", [{}]),
    "alloca_buffer": (lambda i, s: np.abs(i["a"]), "o", [{}]),
    "splat_constant": (lambda i, s: i["a"] * np.float32(2.5), "o", [{}]),
    "small_table": (lambda i, s: i["a"] + np.array([1, 2, 3, 4], np.float32), "o", [{}]),
    "loop_tail": (_loop_tail, "o", [{"n": 64}, {"n": 50}, {"n": 33}, {"n": 49}]),
    "cube_slice": (lambda i, s: np.exp(i["a"][:, :, 16:]), "o", [{}]),
    "cube_page": (lambda i, s: np.abs(i["a"][2:3]), "o", [{}]),
    "tensor_tail": (_tensor_tail, "o", [{"off": 0, "n": 100}, {"off": 90, "n": 100}, {"off": 99, "n": 100}]),
    "odd_columns": (lambda i, s: np.exp(i["a"][2:6, 1::2]), "o", [{}]),
    "every_third": (lambda i, s: i["a"][s["k"]:s["k"] + 22:3], "o", [{"k": 0}, {"k": 5}, {"k": 10}]),
}


def _chunk_file(name: str, tmp_path: Path) -> Path:
    for chunk in split_chunks(FILE.read_text(), True):
        if f"@{name}(" in chunk.text:
            path = tmp_path / f"{name}.mlir"
            path.write_text(chunk.text)
            return path
    raise AssertionError(name)


def _inputs(program, scalars):
    rng = np.random.default_rng(11)
    out = {}
    for p in program.functions[0].params:
        if not hasattr(p.type, "shape"):
            out[p.name] = scalars[p.name]
            continue
        shape = tuple(int(getattr(s, "value", s)) for s in p.type.shape)
        out[p.name] = rng.uniform(-1.0, 1.0, shape).astype(np.float32)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_pass_on_and_off_match_numpy(name, tmp_path):
    ref, out_name, scalar_sets = CASES[name]
    program = load_program(str(_chunk_file(name, tmp_path)), name)
    for scalars in scalar_sets:
        inputs = _inputs(program, scalars)
        # a rank-1 MLIR argument is the pl tensor [1, n]: the references index the MLIR shapes
        arrays = {k: (v.reshape(-1) if v.shape[0] == 1 else v) for k, v in inputs.items() if isinstance(v, np.ndarray)}
        want = ref(arrays, scalars)
        results = {}
        for label, options in (("on", {}), ("off", {"enable_auto_bind_sub_block": False})):
            report = run_and_compare(program, {k: (v.copy() if isinstance(v, np.ndarray) else v)
                                               for k, v in inputs.items()}, options=options)
            assert report.matches, (label, scalars, report.details)
            got = np.asarray(report.outputs[out_name], np.float32).reshape(want.shape)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"{label} {scalars}")
            results[label] = got
        np.testing.assert_array_equal(results["on"], results["off"])


REFUSED = Path(__file__).resolve().parents[1] / "lit" / "mlir" / "dynamic_windows_refused.mlir"
REFUSALS = {  # name: (line of the refused op, words of the error)
    "unbounded_size": (16, "has no static bound"),
    "offset_unbounded": (35, "is not provably inside the extent 64"),
    "strided_slice": (51, "strides [2, 1]"),
    "big_table": (63, "non-splat dense constant of 128 elements"),
    "shifted_cast": (78, "contiguous row-major reshape"),
    "ragged_cube": (92, "not a rectangle of the tile flattened to 2-D"),
    "compute_on_tail": (112, "not a static shaped tile"),
    "static_into_tail": (130, "run-time sizes on the same axes"),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_what_is_not_lowered_is_a_located_error(name):
    line, words = REFUSALS[name]
    with pytest.raises(TilefoldError) as info:
        load_program(str(REFUSED), name)
    text = info.value.render()
    assert f"dynamic_windows_refused.mlir:{line}:3" in text and words in text, text
    assert "hint:" in text
