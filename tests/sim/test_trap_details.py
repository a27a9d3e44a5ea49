"""Every device trap names the instruction, the faulting address and gives a hint; GM out-of-bounds
accesses report the first faulting byte."""

import itertools

import numpy as np
import pytest
from sim_helpers import FP32, Acc, Left, Mat, Right, Vec, buf, program, tensor

from tilefold.backend.pto import SConst, TCustom, TExtract, TLoad, TMatmul, TStore, TSubview, TVector
from tilefold.custom import register_custom_op, unregister_custom_op
from tilefold.ir.types import DataType, MemorySpace
from tilefold.sim import DeviceFault, DeviceHang, IllegalUnit, OutOfBounds, UnsupportedDataPath, simulate
from tilefold.targets import get_target

Z = SConst(0)
F16 = DataType.FP16


def _first_faulting_byte(offsets, window, shape, itemsize):
    """Brute force: walk the window in row-major order, return the byte offset (from the tensor base,
    C-contiguous strides) of the first element outside the tensor."""
    strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    for w in itertools.product(*(range(n) for n in window)):
        idx = [o + d for o, d in zip(offsets, w, strict=True)]
        if any(i < 0 or i >= e for i, e in zip(idx, shape, strict=True)):
            return sum(i * s for i, s in zip(idx, strides, strict=True)) * itemsize
    raise AssertionError("window is in bounds")


@pytest.mark.parametrize("shape, offsets, window", [
    ((16, 16), (8, 0), (16, 16)),  # rows past the end: first faulting row is 16, not the clamped 8
    ((16, 16), (0, 8), (16, 16)),  # columns past the end: element (0, 16)
    ((16, 16), (-2, 0), (16, 16)),  # before the start: a negative byte offset
    ((2, 4, 8), (1, 1, 0), (1, 4, 8)),  # 3-D: the inner axis leaves first
    ((4, 8), (3, 4), (2, 8)),  # both axes: (3, 8) comes before (4, 4) in row-major order
])
def test_gm_out_of_bounds_reports_the_first_faulting_byte(shape, offsets, window):
    rows = int(np.prod(window[:-1]))
    cols = window[-1]
    p = program([TLoad("t", "x", tuple(SConst(o) for o in offsets), window)], [buf("t", Vec, 0, rows, cols)],
                [tensor("x", shape)])
    with pytest.raises(OutOfBounds) as exc:
        simulate(p, {"x": np.zeros(shape, np.float32)})
    f = exc.value
    assert f.address == _first_faulting_byte(offsets, window, shape, 4)
    assert f.space == "GM" and f.instruction.startswith("tload") and f.hint
    if f.address < 0:
        assert f"address -0x{-f.address:x}" in str(f)


def test_gm_out_of_bounds_on_store():
    p = program([TLoad("t", "x", (Z, Z), (16, 64)), TStore("out", (SConst(8), Z), "t", (16, 64))],
                [buf("t", Vec, 0, 16, 64)], [tensor("x", (16, 64)), tensor("out", (16, 64), "Out")])
    with pytest.raises(OutOfBounds) as exc:
        simulate(p, {"x": np.zeros((16, 64), np.float32)})
    assert exc.value.address == 16 * 64 * 4 and exc.value.instruction.startswith("tstore")


def _copy(x):
    return np.array(x, copy=True)


@pytest.fixture
def identity_op():
    register_custom_op("test.trap_details.copy", _copy)
    yield "test.trap_details.copy"
    unregister_custom_op("test.trap_details.copy")


def test_custom_op_checks_alignment_of_vec_inputs(identity_op):
    p = program(
        [TLoad("t", "x", (Z, Z), (16, 16)), TSubview("s", "t", Z, SConst(1), (16, 1)),
         TCustom(identity_op, ("y",), ("s",)), TStore("out", (Z, Z), "y", (16, 1))],
        [buf("t", Vec, 0, 16, 16), buf("y", Vec, 1024, 16, 1)],
        [tensor("x", (16, 16)), tensor("out", (16, 1), "Out")])
    with pytest.raises(DeviceHang) as exc:
        simulate(p, {"x": np.zeros((16, 16), np.float32)})
    assert exc.value.address == 4 and exc.value.instruction.startswith("custom") and exc.value.hint


def test_custom_op_with_aligned_vec_input_runs(identity_op):
    p = program(
        [TLoad("t", "x", (Z, Z), (16, 16)), TSubview("s", "t", Z, SConst(8), (16, 1)),
         TCustom(identity_op, ("y",), ("s",)), TStore("out", (Z, Z), "y", (16, 1))],
        [buf("t", Vec, 0, 16, 16), buf("y", Vec, 1024, 16, 1)],
        [tensor("x", (16, 16)), tensor("out", (16, 1), "Out")])
    x = np.arange(256, dtype=np.float32).reshape(16, 16)
    np.testing.assert_array_equal(simulate(p, {"x": x}).outputs["out"], x[:, 8:9])


# --- every trap carries instruction, address and hint --------------------------------------------


def _traps():
    x16 = tensor("x", (16, 16))
    cap = get_target().capacity(MemorySpace.Vec)
    yield "hang", DeviceHang, program(
        [TLoad("t", "x", (Z, Z), (16, 16)), TSubview("s", "t", Z, SConst(1), (16, 1)),
         TVector("tmuls", "tile.muls", "y", ("s", SConst(2.0)))],
        [buf("t", Vec, 0, 16, 16), buf("y", Vec, 1024, 16, 1)], [x16])
    yield "mat->mat on 910C", UnsupportedDataPath, program(
        [TLoad("m", "x", (Z, Z), (16, 16)), TExtract("m2", "m", Z, Z)],
        [buf("m", Mat, 0, 16, 16), buf("m2", Mat, 1024, 16, 16)], [x16], target="Ascend910C")
    yield "vec->mat", UnsupportedDataPath, program(
        [TLoad("t", "x", (Z, Z), (16, 16)), TExtract("m", "t", Z, Z, opcode="tmov")],
        [buf("t", Vec, 0, 16, 16), buf("m", Mat, 0, 16, 16)], [x16])
    yield "gm", OutOfBounds, program([TLoad("t", "x", (SConst(1), Z), (16, 16))], [buf("t", Vec, 0, 16, 16)], [x16])
    yield "gm rank", OutOfBounds, program([TLoad("t", "x", (Z,), (16, 16))], [buf("t", Vec, 0, 16, 16)], [x16])
    yield "memory", OutOfBounds, program([TLoad("t", "x", (Z, Z), (16, 16))], [buf("t", Vec, cap - 512, 16, 16)],
                                         [x16])
    yield "extract window", OutOfBounds, program(
        [TLoad("t", "x", (Z, Z), (16, 16)), TExtract("u", "t", SConst(8), Z)],
        [buf("t", Vec, 0, 16, 16), buf("u", Vec, 2048, 16, 16)], [x16])
    yield "vector on Mat", UnsupportedDataPath, program(
        [TLoad("t", "x", (Z, Z), (16, 16)), TVector("tmuls", "tile.muls", "y", ("t", SConst(2.0)))],
        [buf("t", Mat, 0, 16, 16), buf("y", Vec, 0, 16, 16)], [x16])
    yield "cube lhs not in Left", UnsupportedDataPath, program(
        [TMatmul("tmatmul", "tile.matmul", "c", ("a", "b"))],
        [buf("a", Right, 0, 16, 16, F16), buf("b", Right, 512, 16, 16, F16), buf("c", Acc, 0, 16, 16)], [])
    yield "cube dst not in Acc", UnsupportedDataPath, program(
        [TMatmul("tmatmul", "tile.matmul", "c", ("a", "b"))],
        [buf("a", Left, 0, 16, 16, F16), buf("b", Right, 0, 16, 16, F16), buf("c", Mat, 0, 16, 16)], [])
    yield "illegal unit", IllegalUnit, program([TLoad("t", "x", (Z, Z), (16, 16))], [buf("t", Mat, 0, 16, 16)],
                                               [x16], func_type="AIV")


@pytest.mark.parametrize("label, kind, prog", list(_traps()), ids=[t[0] for t in _traps()])
def test_every_trap_names_instruction_address_and_hint(label, kind, prog):
    inputs = {t.name: np.zeros(t.shape, t.dtype.np_dtype) for t in prog.entry_kernel.tensors}
    with pytest.raises(kind) as exc:
        simulate(prog, inputs)
    f: DeviceFault = exc.value
    assert f.instruction, label
    assert f.address is not None, label
    assert f.hint, label
    assert f.unit, label
    text = str(f)
    assert f.instruction in text and "hint:" in text and "address" in text


def test_vec_to_mat_trap_hint_names_the_gm_round_trip():
    prog = dict((t[0], t[2]) for t in _traps())["vec->mat"]
    with pytest.raises(UnsupportedDataPath) as exc:
        simulate(prog, {"x": np.zeros((16, 16), np.float32)})
    assert "pl.store" in exc.value.hint and "target_memory=pl.Mem.Mat" in exc.value.hint
    assert FP32 is DataType.FP32
