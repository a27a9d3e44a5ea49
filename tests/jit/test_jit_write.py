"""pl.write / pl.tensor.write: one scalar written into one GM element (an `swrite` on the scalar pipe, ordered
against the DMA pipes by sync events), and PyPTO's GM store coherence restriction (a bulk store and element
writes into one GM tensor in one kernel are rejected). References are computed here with numpy."""

import dataclasses

import element_write_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.backend.pto import SetFlag, SWrite, WaitFlag
from tilefold.compiler import compile
from tilefold.errors import NotSupportedError, TypeInferenceError
from tilefold.sim import simulate
from tilefold.sim.faults import MissingSync, OutOfBounds
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(41)


def test_every_element_written_with_pl_write():
    out = np.full((4, 8), -1, np.int32)
    k.write_ramp(out)
    np.testing.assert_array_equal(out, 10 * np.arange(4)[:, None] + np.arange(8)[None, :])


def test_element_reads_steer_element_writes_and_other_elements_keep_their_values():
    a = RNG.standard_normal(16).astype(np.float32)
    idx = np.array([3, 0, 9, 15], np.int32)
    out = np.full(16, -1.0, np.float32)
    k.scatter_scaled(a, idx, out)
    expected = np.full(16, -1.0, np.float32)
    expected[idx] = 2 * a[idx]
    np.testing.assert_array_equal(out, expected)


def test_write_lowers_to_swrite_on_the_scalar_pipe():
    a, idx, out = np.zeros(16, np.float32), np.zeros(4, np.int32), np.zeros(16, np.float32)
    compiled = k.scatter_scaled.compile(a, idx, out)
    assert "swrite @out[$i], ($v * 2.0)" in compiled.pto.text()
    assert "pl.tensor.write(out, [i], v * 2.0)" in k.scatter_scaled.lower(a, idx, out).as_python()


def test_a_load_after_a_write_sees_it_through_an_s_to_mte2_event():
    a, flag, out = RNG.standard_normal((16, 64)).astype(np.float32), np.zeros((16, 64), np.float32), None
    out = np.zeros((16, 64), np.float32)
    k.write_then_load(a, flag, out)
    expected_flag = np.zeros((16, 64), np.float32)
    expected_flag[3, 5] = 7.0
    np.testing.assert_array_equal(flag, expected_flag)
    np.testing.assert_allclose(out, a + expected_flag, rtol=1e-6)
    compiled = k.write_then_load.compile(a, flag, out)
    text = compiled.pto.text()
    assert "set_flag S -> MTE2" in text and "wait_flag S -> MTE2" in text
    # the AIV function runs on both sub-blocks: the element write is fenced to sub-block 0
    assert "if ($subblock_idx == 0):\n    swrite @flag[3, 5], 7.0" in text
    # without the event the simulator reports the unordered pair
    kernel = next(iter(compiled.pto.kernels.values()))
    stripped = dataclasses.replace(kernel, body=_strip_flags(kernel.body, ("S", "MTE2")))
    pto = dataclasses.replace(compiled.pto, kernels={kernel.name: stripped})
    with pytest.raises(MissingSync) as info:
        simulate(pto, {"a": a, "flag": np.zeros((16, 64), np.float32), "out": out}, compiled.target)
    assert "swrite @flag" in str(info.value) and "tload %f, @flag" in str(info.value)


def _strip_flags(body, pair):
    kept = []
    for ins in body:
        if isinstance(ins, (SetFlag, WaitFlag)) and (ins.src, ins.dst) == pair:
            continue
        for field in ("body", "then_body", "else_body"):
            sub = getattr(ins, field, None)
            if isinstance(sub, tuple):
                ins = dataclasses.replace(ins, **{field: _strip_flags(sub, pair)})
        kept.append(ins)
    return tuple(kept)


@pytest.mark.parametrize("i", [16, -1])
def test_out_of_bounds_write_is_a_located_fault(i):
    a, out = np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32)
    with pytest.raises(OutOfBounds) as info:
        k.write_at(a, i, out)
    text = str(info.value)
    assert f"element write at [{i}, 2] leaves tensor @out of shape [16, 64] on axis 0" in text
    assert "element_write_kernels.py:" in text and "swrite @out[$i, 2]" in text


def test_golden_and_simulator_agree_on_element_writes():
    src = '''import tilefold.language as pl

@pl.jit
def k(a: pl.Tensor[[8, 8], pl.FP32], out: pl.InOut[pl.Tensor[[8, 8], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(8):
            v = pl.read(a, [i, 7 - i])
            pl.write(out, [i, i], v * 3.0)
    return out
'''
    a = RNG.standard_normal((8, 8)).astype(np.float32)
    report = run_and_compare(pl.parse(src), {"a": a, "out": np.zeros((8, 8), np.float32)})
    assert report.matches, report.summary()
    np.testing.assert_array_equal(report.outputs["out"], np.diag(3 * a[np.arange(8), 7 - np.arange(8)]))
    assert any(isinstance(ins, SWrite) for kern in report.compiled.pto.kernels.values() for ins in _walk(kern.body))


def _walk(body):
    for ins in body:
        yield ins
        for field in ("body", "then_body", "else_body"):
            yield from _walk(getattr(ins, field, None) or ())


def test_a_bulk_store_and_element_writes_into_one_tensor_are_rejected():
    a, out = np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32)
    with pytest.raises(NotSupportedError) as info:
        k.mixed_store_paths(a, out)
    err = info.value
    assert "writes GM tensor @out both with a bulk store (line 44) and with element writes (pl.write)" in err.message
    assert err.span.line == 45 and "element_write_kernels.py" in err.span.filename
    assert "stage the values in a tile" in err.hint


ASSEMBLE_AND_WRITES = '''import tilefold.language as pl

@pl.jit
def k(a: pl.Tensor[[1, 16], pl.INT32], output: pl.Out[pl.Tensor[[1, 16], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
{body}
    return output
'''
ASSEMBLE = "        output[0:1, 0:16] = a\n"
WRITES = "        for i in pl.range(4):\n            pl.write(output, [0, i], i)\n"


def test_pyptos_rejected_example_an_assembled_block_and_element_writes():
    # element writes, then the bulk (assemble -> tile.store) write of the same tensor: the coherence rule
    with pytest.raises(NotSupportedError) as info:
        compile(pl.parse(ASSEMBLE_AND_WRITES.format(body=WRITES + ASSEMBLE), "kern.py"))
    assert "both with a bulk store (line 8)" in info.value.message and info.value.span.line == 7
    # PyPTO's own order (assemble first): the same coherence rule, located at the element write
    with pytest.raises(NotSupportedError) as info:
        compile(pl.parse(ASSEMBLE_AND_WRITES.format(body=ASSEMBLE + WRITES), "kern.py"))
    assert "both with a bulk store (line 6)" in info.value.message and info.value.span.line == 8


@pytest.mark.parametrize(("call", "text"), [
    ("pl.write(out, [0], 1.0)", "1 indices given for a rank-2 tensor"),
    ("pl.write(out, [0, 70], 1.0)", "index 70 on axis 1 is outside the tensor extent 64"),
    ("pl.write(ints, [0, 0], 1.5)", "a FP32 value cannot be written into a INT32 tensor"),
])
def test_bad_element_writes_are_located_errors(call, text):
    src = f'''import tilefold.language as pl

@pl.jit
def k(out: pl.Out[pl.Tensor[[16, 64], pl.FP32]], ints: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        {call}
    return out, ints
'''
    with pytest.raises(TypeInferenceError) as info:
        pl.parse(src, "kern.py")
    assert text in info.value.message and info.value.hint and info.value.span.line == 6


def test_element_writes_into_a_staged_tile_then_one_store():
    out = np.zeros((1, 32), np.int32)
    k.staged_writes(out)
    expected = np.full((1, 32), -1, np.int32)
    expected[0, :4] = 3 * np.arange(4)
    np.testing.assert_array_equal(out, expected)
    text = k.staged_writes.compile(out).pto.text()
    assert "ssetval %staged[0, $i], ($i * 3)" in text and "swrite" not in text
    # the texpands (VECTOR) -> ssetval (S) -> tstore (MTE3) chain is ordered by events
    assert "set_flag VECTOR -> S" in text and "set_flag S -> MTE3" in text
    assert "pl.tile.write(staged, [0, i], i * 3)" in k.staged_writes.lower(out).as_python()


def test_staged_writes_golden_equals_simulator():
    src = '''import tilefold.language as pl

@pl.jit
def k(a: pl.Tensor[[8], pl.FP32], output: pl.Out[pl.Tensor[[2, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        staged = pl.tile.full([2, 16], dtype=pl.FP32, value=0.5)
        for i in pl.range(8):
            v = pl.read(a, [i])
            pl.write(staged, [i % 2, i], v * v)
        output[:, :] = staged
    return output
'''
    a = RNG.standard_normal(8).astype(np.float32)
    report = run_and_compare(pl.parse(src), {"a": a, "output": np.zeros((2, 16), np.float32)})
    assert report.matches, report.summary()
    expected = np.full((2, 16), 0.5, np.float32)
    expected[np.arange(8) % 2, np.arange(8)] = a * a
    np.testing.assert_allclose(report.outputs["output"], expected, rtol=1e-6)


def test_an_element_write_outside_a_tile_is_a_type_error():
    src = '''import tilefold.language as pl

@pl.jit
def k(output: pl.Out[pl.Tensor[[1, 32], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        staged = pl.tile.full([1, 32], dtype=pl.INT32, value=-1)
        pl.write(staged, [0, 32], 1)
        output[0:1, 0:32] = staged
    return output
'''
    with pytest.raises(TypeInferenceError) as info:
        pl.parse(src, "kern.py")
    assert "index 32 on axis 1 is outside the tile extent 32" in info.value.message and info.value.span.line == 7


def test_a_write_after_a_load_of_the_same_tensor_waits_on_an_mte2_to_s_event():
    src = '''import tilefold.language as pl

@pl.jit
def k(flag: pl.InOut[pl.Tensor[[16, 64], pl.FP32]], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        f = pl.load(flag, [0, 0], [16, 64])
        pl.write(flag, [0, 0], -1.0)
        pl.store(pl.muls(f, 2.0), [0, 0], out)
    return out, flag
'''
    flag = RNG.standard_normal((16, 64)).astype(np.float32)
    report = run_and_compare(pl.parse(src), {"flag": flag.copy(), "out": np.zeros((16, 64), np.float32)})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], 2 * flag, rtol=1e-6)  # the load saw the old element
    assert report.outputs["flag"][0, 0] == -1.0
    assert "set_flag MTE2 -> S" in report.compiled.pto.text()


@pl.jit
def staged_tensor_fill(output: pl.Out[pl.Tensor[[1, 32], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        staged = pl.full([1, 32], dtype=pl.INT32, value=-1)  # a tensor-level value: lives in a tile
        for i in pl.range(4):
            pl.write(staged, [0, i], pl.cast(i, pl.INT32))
        output[0:1, 0:32] = staged
    return output


def test_writes_into_a_tensor_level_full_are_staged_in_its_tile_and_stored_once():
    """dev/10's supported form: the element writes update the on-chip value, then one bulk store."""
    out = np.zeros((1, 32), np.int32)
    staged_tensor_fill(out)
    ref = np.full((1, 32), -1, np.int32)
    ref[0, :4] = np.arange(4)
    np.testing.assert_array_equal(out, ref)
    text = staged_tensor_fill.compile(out).pto.text()
    assert text.count("tstore") == 1 and "ssetval" in text and "swrite" not in text
