"""INT4 and UINT4 are stored two elements per byte exactly as FP4 is (``DataType.storage_bits`` is 4 for every 4-bit
type): the planner, budget checks, PTO buffer sizes, DMA byte counts and the simulator's bytes count half a byte per
element, and a row must start and end on a byte. Integer semantics: INT4 is -8..7 in two's complement nibbles,
UINT4 0..15; float -> 4-bit casts saturate, integer -> 4-bit casts and 4-bit arithmetic wrap, as the wider integers
do. HF4 / HF8 exist as names only: their bit encoding is undocumented. References here are hand-written numpy."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile
from tilefold.errors import NotSupportedError, TilefoldError
from tilefold.ir.types import DataType
from tilefold.testing import run_and_compare

NP4 = {"INT4": ml_dtypes.int4, "UINT4": ml_dtypes.uint4}
RANGE = {"INT4": (-8, 7), "UINT4": (0, 15)}


def _pack(values: np.ndarray) -> np.ndarray:
    """Reference packing: the two's complement nibble of each element, element 2j in the low nibble of byte j."""
    codes = np.asarray(values, np.int64) & 0x0F
    return (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)


def _unpack(packed: np.ndarray, signed: bool) -> np.ndarray:
    lo, hi = packed & 0x0F, packed >> 4
    out = np.empty(packed.shape[:-1] + (packed.shape[-1] * 2,), np.int64)
    out[..., 0::2], out[..., 1::2] = lo, hi
    return np.where(out > 7, out - 16, out) if signed else out


ROUND_TRIP = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.DT], b: pl.Out[pl.Tensor[[16, 64], pl.FP16]],
          c: pl.Out[pl.Tensor[[16, 64], pl.DT]]) -> tuple[pl.Tensor[[16, 64], pl.FP16], pl.Tensor[[16, 64], pl.DT]]:
        t = pl.load(a, [0, 0], [16, 64])
        h = pl.cast(t, pl.FP16)
        h2 = pl.add(h, h)
        b = pl.store(h2, [0, 0], b)
        q = pl.cast(h2, pl.DT)
        c = pl.store(q, [0, 0], c)
        return b, c
'''


def test_every_4bit_type_is_packed():
    for dt in (DataType.INT4, DataType.UINT4, DataType.FP4, DataType.HF4):
        assert dt.storage_bits == 4 and dt.packed, dt
        assert [dt.nbytes(n) for n in (0, 1, 2, 3, 64)] == [0, 1, 1, 2, 32]
        assert dt.itemsize == 1 and dt.get_byte() == 1
    assert DataType.HF8.storage_bits == 8 and not DataType.HF8.packed
    assert pl.UINT4 is DataType.UINT4 and pl.HF4 is DataType.HF4 and pl.HF8 is DataType.HF8
    assert DataType.UINT4.is_int and not DataType.HF4.encoded and not DataType.HF8.encoded and DataType.INT4.encoded


@pytest.mark.parametrize("dt", ["INT4", "UINT4"])
def test_the_simulated_bytes_are_twos_complement_nibbles_low_first(dt):
    from tilefold.sim.memory import Handle, read, write

    lo, hi = RANGE[dt]
    vals = np.arange(lo, hi + 1).reshape(2, 8)  # every code of the type
    mem = np.zeros(32, np.uint8)
    h = Handle(pl.Mem.Vec, 0, 2, 8, 8, DataType[dt])
    write(mem, h, vals.astype(NP4[dt]))
    assert h.nbytes == 8 and h.span() == (0, 8)
    np.testing.assert_array_equal(mem[:8], _pack(vals).ravel())
    assert mem[8:].sum() == 0  # nothing past the packed tile
    if dt == "INT4":
        assert list(mem[:2]) == [0x98, 0xBA]  # -8 = 0x8, -7 = 0x9, -6 = 0xA, -5 = 0xB
    np.testing.assert_array_equal(read(mem, h).astype(np.int64), vals)
    np.testing.assert_array_equal(_unpack(mem[:8].reshape(2, 4), dt == "INT4"), vals)


@pytest.mark.parametrize("dt", ["INT4", "UINT4"])
def test_a_round_trip_through_a_kernel(dt):
    lo, hi = RANGE[dt]
    a = np.random.default_rng(5).integers(lo, hi + 1, (16, 64))
    ins = {"a": a.astype(NP4[dt]), "b": np.zeros((16, 64), np.float16), "c": np.zeros((16, 64), NP4[dt])}
    report = run_and_compare(pl.parse(ROUND_TRIP.replace("DT", dt)), ins)
    assert report.fault is None and report.matches, report.summary()
    np.testing.assert_array_equal(report.outputs["b"].astype(np.float64), 2.0 * a)
    # FP16 -> 4-bit saturates to the type's range
    np.testing.assert_array_equal(report.outputs["c"].astype(np.int64), np.clip(2 * a, lo, hi))
    # per sub-block ([8, 64]): load 256 B of 4-bit, store 1024 B of FP16 and 256 B of 4-bit
    assert report.sim.bytes_moved == 2 * (256 + 1024 + 256)
    kernel = compile(pl.parse(ROUND_TRIP.replace("DT", dt))).pto.kernels["k"]
    assert kernel.buffers["t"].nbytes == 8 * 64 // 2 and kernel.buffers["q"].nbytes == 8 * 64 // 2


CAST = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 16], pl.SRC], c: pl.Out[pl.Tensor[[1, 16], pl.DST]]) -> pl.Tensor[[1, 16], pl.DST]:
        t = pl.load(a, [0, 0], [1, 16])
        q = pl.cast(t, pl.DST, mode="MODE")
        c = pl.store(q, [0, 0], c)
        return c
'''

FLOATS = np.array([[0.0, 0.4, 0.6, -0.6, 2.5, -2.5, 3.5, 6.9, 7.4, 7.6, 8.0, 100.0, -7.6, -8.4, -9.0, np.nan]],
                  np.float32)


@pytest.mark.parametrize("dt,mode", [("INT4", "round"), ("INT4", "trunc"), ("UINT4", "round"), ("UINT4", "floor")])
def test_float_to_4bit_rounds_then_saturates(dt, mode):
    lo, hi = RANGE[dt]
    rounded = {"round": np.where(FLOATS >= 0, np.floor(FLOATS + 0.5), np.ceil(FLOATS - 0.5)),
               "trunc": np.trunc(FLOATS), "floor": np.floor(FLOATS)}[mode]
    want = np.clip(np.nan_to_num(rounded, nan=0.0), lo, hi).astype(np.int64)
    src = CAST.replace("SRC", "FP32").replace("DST", dt).replace("MODE", mode)
    report = run_and_compare(pl.parse(src), {"a": FLOATS, "c": np.zeros((1, 16), NP4[dt])})
    assert report.fault is None and report.matches, report.summary()
    np.testing.assert_array_equal(report.outputs["c"].astype(np.int64), want)


@pytest.mark.parametrize("src_dt,dst_dt,values", [
    ("INT32", "INT4", [0, 7, 8, 9, 15, 16, -1, -8, -9, -16, 23, -23, 100, -100, 1, 2]),
    ("INT32", "UINT4", [0, 15, 16, 17, -1, -16, 31, 255, 5, -5, 100, 8, 7, 1, 2, 3]),
    ("INT4", "UINT4", [-8, -7, -1, 0, 1, 7, -2, 3, -8, -7, -1, 0, 1, 7, -2, 3]),
    ("UINT4", "INT4", [0, 1, 7, 8, 9, 15, 14, 2, 0, 1, 7, 8, 9, 15, 14, 2]),
])
def test_integer_to_4bit_wraps(src_dt, dst_dt, values):
    """int -> int conversions keep the low bits (two's complement), as for INT8 / INT16."""
    a = np.array([values], np.int64)
    lo, hi = RANGE[dst_dt]
    want = (a - lo) % 16 + lo
    src_np = NP4.get(src_dt, np.int32)
    src = CAST.replace("SRC", src_dt).replace("DST", dst_dt).replace(', mode="MODE"', "")
    report = run_and_compare(pl.parse(src), {"a": a.astype(src_np), "c": np.zeros((1, 16), NP4[dst_dt])})
    assert report.fault is None and report.matches, report.summary()
    np.testing.assert_array_equal(report.outputs["c"].astype(np.int64), want)


def test_4bit_to_fp16_is_exact():
    codes = np.arange(-8, 8).reshape(1, 16)
    src = CAST.replace("SRC", "INT4").replace("DST", "FP16").replace(', mode="MODE"', "")
    report = run_and_compare(pl.parse(src), {"a": codes.astype(ml_dtypes.int4), "c": np.zeros((1, 16), np.float16)})
    assert report.matches, report.summary()
    np.testing.assert_array_equal(report.outputs["c"].astype(np.float64), codes)


ARITH = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.DT], c: pl.Out[pl.Tensor[[16, 64], pl.DT]]) -> pl.Tensor[[16, 64], pl.DT]:
        t = pl.load(a, [0, 0], [16, 64])
        q = pl.OP(t, t)
        c = pl.store(q, [0, 0], c)
        return c
'''


@pytest.mark.parametrize("dt,op", [("INT4", "add"), ("INT4", "mul"), ("UINT4", "add"), ("UINT4", "sub")])
def test_4bit_arithmetic_wraps_like_the_wider_integers(dt, op):
    """INT8 100 + 100 is -56 on tilefold; INT4 5 + 5 is likewise -6 (it was computed in FP32 and saturated to 7)."""
    lo, hi = RANGE[dt]
    a = np.random.default_rng(2).integers(lo, hi + 1, (16, 64))
    exact = {"add": a + a, "mul": a * a, "sub": a - a[::-1]}[op]
    if op == "sub":
        src = ARITH.replace("pl.OP(t, t)", "pl.sub(t, pl.load(a, [0, 0], [16, 64]))")
        exact = a - a
        a = a  # same operand twice: exercises the path, result 0
    else:
        src = ARITH.replace("OP", op)
    want = (exact - lo) % 16 + lo
    report = run_and_compare(pl.parse(src.replace("DT", dt)), {"a": a.astype(NP4[dt]), "c": np.zeros((16, 64),
                                                                                                     NP4[dt])})
    assert report.fault is None and report.matches, report.summary()
    np.testing.assert_array_equal(report.outputs["c"].astype(np.int64), want)


WINDOW = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, WIDTH], pl.DT], c: pl.Out[pl.Tensor[[16, 64], pl.DT]]) -> pl.Tensor[[16, 64], pl.DT]:
        t = pl.load(a, [0, LOAD_COL], [16, 32])
        c = pl.store(t, [0, STORE_COL], c)
        return c
'''


@pytest.mark.parametrize("dt", ["INT4", "UINT4"])
@pytest.mark.parametrize("width,load_col,store_col,fault", [
    (64, 0, 32, None), (64, 1, 0, "load"), (64, 0, 3, "store"), (65, 0, 0, "load"),
])
def test_a_gm_window_starts_every_row_on_a_byte(dt, width, load_col, store_col, fault):
    lo, hi = RANGE[dt]
    src = WINDOW.replace("WIDTH", str(width)).replace("LOAD_COL", str(load_col)).replace("STORE_COL", str(store_col))
    a = np.random.default_rng(3).integers(lo, hi + 1, (16, width))
    report = run_and_compare(pl.parse(src.replace("DT", dt)), {"a": a.astype(NP4[dt]),
                                                               "c": np.zeros((16, 64), NP4[dt])})
    if fault is None:
        assert report.fault is None and report.matches, report.summary()
        got = report.outputs["c"].astype(np.int64)
        np.testing.assert_array_equal(_unpack(_pack(got[:, 32:]), dt == "INT4"), a[:, :32])
        assert not got[:, :32].any()
        assert report.sim.bytes_moved == 2 * 2 * (8 * 32 // 2)  # two sub-blocks, a load and a store of 128 B each
        return
    assert type(report.fault).__name__ == "UnsupportedDataPath", report.summary()
    assert "mid-byte" in str(report.fault) and f"t{fault}" in str(report.fault)
    if (width, load_col) == (64, 1):  # the fault address is the byte holding element (0, 1): byte 0, not 1
        assert report.fault.address == 0


@pytest.mark.parametrize("dt", ["INT4", "UINT4"])
def test_an_odd_innermost_extent_is_a_located_error(dt):
    src = ROUND_TRIP.replace("DT", dt).replace("[16, 64]", "[16, 63]")
    with pytest.raises(TilefoldError) as info:
        compile(pl.parse(src))
    assert "ends mid-byte" in info.value.message and "even innermost extent" in info.value.hint
    assert info.value.span is not None and info.value.span.line > 0


def test_the_budget_check_counts_packed_int4_bytes():
    src = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2048, 768], pl.INT4], out: pl.Out[pl.Tensor[[16, 16], pl.INT4]]
          ) -> pl.Tensor[[16, 16], pl.INT4]:
        t = pl.load(a, [0, 0], [2048, 768], target_memory=pl.Mem.Mat)
        s = pl.tile.extract(t, 0, 0, shape=[16, 16], target_memory=pl.Mem.Vec)
        out = pl.store(s, [0, 0], out)
        return out
'''
    with pytest.raises(TilefoldError) as info:
        compile(pl.parse(src))
    assert f"needs {2048 * 768 // 2} bytes" in info.value.message


def test_reinterpreting_int4_is_refused():
    src = ROUND_TRIP.replace("DT", "INT4").replace(
        "h = pl.cast(t, pl.FP16)", "h = pl.cast(pl.tile.reinterpret_view(t, dtype=pl.INT8), pl.FP16)")
    with pytest.raises(TilefoldError, match="INT4 \\(two elements per byte\\)"):
        pl.parse(src)


@pytest.mark.parametrize("dt", ["HF4", "HF8"])
def test_hisilicon_floats_are_refused_where_used(dt):
    with pytest.raises(NotSupportedError) as info:
        pl.parse(ROUND_TRIP.replace("pl.Tensor[[16, 64], pl.DT], b", f"pl.Tensor[[16, 64], pl.{dt}], b")
                 .replace("pl.DT", "pl.FP16"))
    err = info.value
    assert f"pl.{dt}" in err.message and "no documented bit encoding" in err.message and "tile.load" in err.message
    assert err.span is not None and err.span.line == 9
    with pytest.raises(NotSupportedError, match="no documented bit encoding") as info:
        pl.parse(ROUND_TRIP.replace("DT", "FP16").replace("q = pl.cast(h2, pl.FP16)",
                                                          f"q = pl.cast(pl.cast(h2, pl.{dt}), pl.FP16)"))
    assert info.value.span is not None and info.value.span.line == 13
    with pytest.raises(NotSupportedError, match="no documented bit encoding"):
        DataType[dt].np_dtype  # noqa: B018 (no array of it can be built)
