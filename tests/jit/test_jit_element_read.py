"""pl.read / pl.tensor.read: one GM element read into a scalar register (an `sread` on the scalar pipe).
References are computed here with numpy, independently of the registry goldens."""

import dataclasses

import element_read_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.backend.pto import SetFlag, SRead, WaitFlag
from tilefold.errors import TilefoldError
from tilefold.sim import simulate
from tilefold.sim.faults import MissingSync, OutOfBounds
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(11)


def r(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_read_elements_as_an_offset_and_a_multiplier():
    a, scale, out = r(64, 64), r(2, 4), np.zeros((16, 64), np.float32)
    offs = np.array([0, 9, 3, 0], np.int32)
    k.scaled_rows(a, scale, offs, out)
    np.testing.assert_allclose(out, a[9:25] * scale[1, 2], rtol=1e-6)
    offs[1] = 40  # another offset, same compiled kernel: the index is data, read at run time
    k.scaled_rows(a, scale, offs, out)
    np.testing.assert_allclose(out, a[40:56] * scale[1, 2], rtol=1e-6)


def test_read_lowers_to_sread_in_the_kernel():
    a, scale, out = r(64, 64), r(2, 4), np.zeros((16, 64), np.float32)
    offs = np.zeros(4, np.int32)
    text = k.scaled_rows.compile(a, scale, offs, out).pto.text()
    assert "= sread @offs[1]" in text and "= sread @scale[1, 2]" in text
    assert "pl.tensor.read(offs, [1])" in k.scaled_rows.lower(a, scale, offs, out).as_python()


def test_read_with_a_runtime_index():
    a, out = r(16, 64), np.zeros((16, 64), np.float32)
    for i in (0, 15):
        k.read_at(a, i, out)
        np.testing.assert_allclose(out, a + a[i, 3], rtol=1e-6)


@pytest.mark.parametrize("i", [16, -1])
def test_out_of_bounds_read_is_a_located_fault(i):
    a, out = r(16, 64), np.zeros((16, 64), np.float32)
    with pytest.raises(OutOfBounds) as exc:
        k.read_at(a, i, out)
    text = str(exc.value)
    assert f"element read at [{i}, 3] leaves tensor @a of shape [16, 64] on axis 0" in text
    assert "element_read_kernels.py:22" in text and "sread @a[$i, 3]" in text


def test_read_after_a_store_to_the_same_tensor_sees_the_store():
    a = r(16, 64)
    out, res = np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32)
    k.store_then_read(a, out, res)
    np.testing.assert_allclose(out, 2 * a, rtol=1e-6)
    np.testing.assert_allclose(res, a + 2 * a[5, 7], rtol=1e-6)


def _strip_flags(body, pair):
    kept = []
    for ins in body:
        if isinstance(ins, (SetFlag, WaitFlag)) and (ins.src, ins.dst) == pair:
            continue
        if hasattr(ins, "body") and isinstance(ins.body, tuple):
            ins = dataclasses.replace(ins, body=_strip_flags(ins.body, pair))
        kept.append(ins)
    return tuple(kept)


def test_store_then_read_is_ordered_by_an_mte3_to_s_event_the_simulator_checks():
    a = r(16, 64)
    out, res = np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32)
    pto = k.store_then_read.compile(a, out, res).pto
    kernel = next(kn for kn in pto.kernels.values() if any(isinstance(i, SRead) for i in kn.body))
    body = kernel.body
    read_at = next(n for n, i in enumerate(body) if isinstance(i, SRead))
    assert any(isinstance(i, WaitFlag) and (i.src, i.dst) == ("MTE3", "S") for i in body[:read_at])
    kernel.body = _strip_flags(body, ("MTE3", "S"))
    with pytest.raises(MissingSync, match="read-after-write hazard .* then `\\$s = sread @out\\[5, 7\\]`"):
        simulate(pto, {"a": a, "out": out, "res": res})


def test_static_index_outside_the_tensor_is_a_type_error():
    src = ("import tilefold.language as pl\n\n@pl.jit\ndef k(a: pl.Tensor[[16, 64], pl.FP32],\n"
           "      out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n        s = pl.read(a, [3, 64])\n"
           "        pl.store(pl.adds(pl.load(a, [0, 0], [16, 64]), s), [0, 0], out)\n    return out\n")
    with pytest.raises(TilefoldError, match="index 64 on axis 1 is outside the tensor extent 64") as exc:
        pl.parse(src, "k.py")
    assert exc.value.span is not None and exc.value.span.line == 7


def test_read_needs_one_index_per_axis():
    src = ("import tilefold.language as pl\n\n@pl.jit\ndef k(a: pl.Tensor[[16, 64], pl.FP32],\n"
           "      out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n        s = pl.tensor.read(a, [3])\n"
           "        pl.store(pl.adds(pl.load(a, [0, 0], [16, 64]), s), [0, 0], out)\n    return out\n")
    with pytest.raises(TilefoldError, match="1 indices given for a rank-2 tensor"):
        pl.parse(src, "k.py")


def test_read_outside_an_incore_scope_is_misplaced():
    src = ("import tilefold.language as pl\n\n@pl.jit\ndef k(a: pl.Tensor[[16, 64], pl.FP32],\n"
           "      out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n    s = pl.read(a, [0, 0])\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = pl.add(a, a)\n    return out\n")
    with pytest.raises(TilefoldError, match="Misplaced tile op 'pl.read'"):
        pl.parse(src, "k.py")


PROGRAM = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], idx: pl.Tensor[[2], pl.INT32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        r: pl.Scalar[pl.INT32] = pl.tensor.read(idx, [0])
        t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [r, 0], [16, 64])
        s: pl.Scalar[pl.FP32] = pl.tensor.read(a, [r, 1])
        u: pl.Tile[[16, 64], pl.FP32] = pl.tile.muls(t, s)
        out2: pl.Tensor[[16, 64], pl.FP32] = pl.store(u, [0, 0], out)
        return out2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], idx: pl.Tensor[[2], pl.INT32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out2: pl.Tensor[[16, 64], pl.FP32] = self.k(a, idx, out)
        return out2
'''


def test_program_form_tensor_read_end_to_end_against_the_golden():
    a = r(32, 64)
    idx = np.array([7, 0], np.int32)
    report = run_and_compare(pl.parse(PROGRAM, "p.py"), {"a": a, "idx": idx, "out": np.zeros((16, 64), np.float32)})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], a[7:23] * a[7, 1], rtol=1e-6)
    np.testing.assert_allclose(report.golden_outputs["out"], a[7:23] * a[7, 1], rtol=1e-6)
