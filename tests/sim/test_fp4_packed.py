"""FP4 (``pl.FP4``, E2M1) is stored two elements per byte, as PyPTO packs it: ``DataType.storage_bits`` is the one
fact; memory footprints (planner), budget checks, PTO buffer sizes, DMA byte counts and the simulator's on-chip
bytes all count half a byte per element. Values are unchanged (numpy references written here). An on-chip FP4 row
must hold whole bytes: an odd innermost extent is a located error."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile
from tilefold.errors import TilefoldError
from tilefold.ir.types import DataType
from tilefold.testing import run_and_compare

F4 = ml_dtypes.float4_e2m1fn

ROUND_TRIP = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP4], b: pl.Out[pl.Tensor[[16, 64], pl.FP16]],
          c: pl.Out[pl.Tensor[[16, 64], pl.FP4]]) -> tuple[pl.Tensor[[16, 64], pl.FP16], pl.Tensor[[16, 64], pl.FP4]]:
        t = pl.load(a, [0, 0], [16, 64])
        h = pl.cast(t, pl.FP16)
        h2 = pl.add(h, h)
        b = pl.store(h2, [0, 0], b)
        q = pl.cast(h2, pl.FP4)
        c = pl.store(q, [0, 0], c)
        return b, c
'''


def test_the_size_fact():
    assert DataType.FP4.storage_bits == 4 and DataType.FP4.packed
    assert [DataType.FP4.nbytes(n) for n in (0, 1, 2, 3, 64)] == [0, 1, 1, 2, 32]
    assert DataType.FP4.itemsize == 1  # one element alone still takes a byte
    assert DataType.INT4.storage_bits == 4 and DataType.INT4.packed  # every 4-bit type is packed (test_int4_packed.py)
    assert DataType.FP8E4M3.nbytes(64) == 64 and DataType.FP16.nbytes(3) == 6


def _inputs(seed=0):
    a = np.random.default_rng(seed).normal(0, 2, (16, 64)).astype(F4)
    return {"a": a, "b": np.zeros((16, 64), np.float16), "c": np.zeros((16, 64), F4)}


def test_values_survive_load_cast_and_store():
    ins = _inputs()
    report = run_and_compare(pl.parse(ROUND_TRIP), ins)
    assert report.fault is None and report.matches, report.summary()
    a = ins["a"].astype(np.float32)
    np.testing.assert_array_equal(report.outputs["b"].astype(np.float32), 2 * a)  # E2M1 doubles exactly in FP16
    want_c = (2 * a).astype(F4)  # round to nearest even, saturating at 6
    np.testing.assert_array_equal(report.outputs["c"].view(np.uint8), want_c.view(np.uint8))


def test_buffers_and_transfers_count_half_a_byte_per_element():
    compiled = compile(pl.parse(ROUND_TRIP))
    kernel = compiled.pto.kernels["k"]
    t, h = kernel.buffers["t"], kernel.buffers["h"]  # an [8, 64] half (one AIV sub-block each)
    assert t.nbytes == 8 * 64 // 2 and h.nbytes == 8 * 64 * 2
    report = run_and_compare(pl.parse(ROUND_TRIP), _inputs(1))
    # per sub-block: load 256 B of FP4, store 1024 B of FP16 and 256 B of FP4; two sub-blocks
    assert report.sim.bytes_moved == 2 * (256 + 1024 + 256)


def test_the_simulated_bytes_are_packed_low_nibble_first():
    from tilefold.sim.memory import Handle, read, write

    mem = np.zeros(64, np.uint8)
    h = Handle(pl.Mem.Vec, 0, 2, 4, 4, DataType.FP4)
    vals = np.array([[0.5, 1.0, 1.5, 2.0], [3.0, 4.0, 6.0, -0.5]], F4)
    write(mem, h, vals)
    assert h.nbytes == 4 and h.span() == (0, 4)
    assert list(mem[:5]) == [0x21, 0x43, 0x65, 0x97, 0]  # codes 1,2 | 3,4 | 5,6 | 7,9
    np.testing.assert_array_equal(read(mem, h).astype(np.float32), vals.astype(np.float32))


def test_the_budget_check_counts_packed_bytes():
    src = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2048, 768], pl.FP4], out: pl.Out[pl.Tensor[[16, 16], pl.FP4]]
          ) -> pl.Tensor[[16, 16], pl.FP4]:
        t = pl.load(a, [0, 0], [2048, 768], target_memory=pl.Mem.Mat)
        s = pl.tile.extract(t, 0, 0, shape=[16, 16], target_memory=pl.Mem.Vec)
        out = pl.store(s, [0, 0], out)
        return out
'''
    with pytest.raises(TilefoldError) as info:
        compile(pl.parse(src))
    assert f"needs {2048 * 768 // 2} bytes" in info.value.message  # 768 KiB packed > 512 KiB of L1


@pytest.mark.parametrize("width", [63, 1])
def test_an_odd_innermost_extent_is_a_located_error(width):
    src = ROUND_TRIP.replace("[16, 64]", f"[16, {width}]")
    with pytest.raises(TilefoldError) as info:
        compile(pl.parse(src))
    err = info.value
    assert "ends mid-byte" in err.message and "even innermost extent" in err.hint
    assert err.span is not None and err.span.line > 0


def test_reinterpreting_fp4_is_refused():
    src = ROUND_TRIP.replace("h = pl.cast(t, pl.FP16)", "h = pl.cast(pl.tile.reinterpret_view(t, dtype=pl.INT8), "
                                                          "pl.FP16)")
    with pytest.raises(TilefoldError, match="two elements per byte"):
        pl.parse(src)


WINDOW = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, WIDTH], pl.FP4], c: pl.Out[pl.Tensor[[16, 64], pl.FP4]]) -> pl.Tensor[[16, 64], pl.FP4]:
        t = pl.load(a, [0, LOAD_COL], [16, 32])
        c = pl.store(t, [0, STORE_COL], c)
        return c
'''


@pytest.mark.parametrize("width,load_col,store_col,fault", [
    (64, 0, 32, None),  # rows of whole bytes: moved as they are
    (64, 1, 0, "load"),  # GM rows start at element 1: half a byte in
    (64, 0, 3, "store"),  # a store would write half of the bytes at both ends
    (65, 0, 0, "load"),  # an odd tensor row: every other GM row of the window starts mid-byte
])
def test_a_gm_window_of_fp4_starts_every_row_on_a_byte(width, load_col, store_col, fault):
    """GM holds FP4 packed two per byte as on chip: a DMA moves whole bytes, so a window whose rows start (or end)
    mid-byte is a device fault, not a silently exact copy."""
    src = WINDOW.replace("WIDTH", str(width)).replace("LOAD_COL", str(load_col)).replace("STORE_COL", str(store_col))
    a = np.random.default_rng(3).normal(0, 2, (16, width)).astype(F4)
    report = run_and_compare(pl.parse(src), {"a": a, "c": np.zeros((16, 64), F4)})
    if fault is None:
        assert report.fault is None and report.matches, report.summary()
        np.testing.assert_array_equal(report.outputs["c"][:, 32:].view(np.uint8), a[:, :32].view(np.uint8))
        return
    assert type(report.fault).__name__ == "UnsupportedDataPath", report.summary()
    assert "mid-byte" in str(report.fault) and f"t{fault}" in str(report.fault)
