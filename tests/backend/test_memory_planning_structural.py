"""InitMemRef, MemoryReuse and AllocateMemoryAddr as Before / Expected pairs: the Expected programs are
written in the DSL with ``pl.MemRef(space, base, byte_offset, size, address=...)`` annotations and compared
with ``ir.assert_structural_equal``."""

import pytest

import tilefold.language as pl
from tilefold import ir
from tilefold.errors import TilefoldError
from tilefold.passes import allocate_memory_addr, init_mem_ref, memory_reuse


def _run(program, *passes):
    for p in passes:
        program = p(program)
    return program


# --- InitMemRef -------------------------------------------------------------------------------------

VIEWS_BEFORE = """
import tilefold.language as pl


@pl.program
class Views:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], r: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 128], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        hi: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 64], [2, 64])
        sq: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(hi, [16, 32])
        row: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 128], [r, 0])
        y: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.adds(sq, 1.0)
        z: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.muls(row, 2.0)
        out = pl.store(y, [0, 0], out)
        out2 = pl.store(z, [0, 0], out2)
        return out
"""


@pl.program
class ViewsAfterInitMemRef:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], r: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 128], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        # a root of its own
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", 0, 8192)] = pl.tile.load(
            x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        # a constant window: the source's base, byte offset (2 * 128 + 64) * 4 with the source's row pitch
        hi: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", 1280, 2048)] = pl.tile.slice(
            t, [8, 64], [2, 64])
        # a reshape of that strided window cannot reuse its bytes: storage of its own (codegen copies)
        sq: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.sq", 0, 2048)] = pl.tile.reshape(
            hi, [16, 32])
        # a dynamic window: the offset stays an expression
        row: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", r * 128 * 4, 512)] = (
            pl.tile.slice(t, [1, 128], [r, 0]))
        y: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.y", 0, 2048)] = pl.tile.adds(sq, 1.0)
        z: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.z", 0, 512)] = pl.tile.muls(row, 2.0)
        out_1: pl.Tensor[[16, 32], pl.FP32] = pl.store(y, [0, 0], out)
        out2_1: pl.Tensor[[1, 128], pl.FP32] = pl.store(z, [0, 0], out2)  # noqa: F841
        return out_1


def test_init_mem_ref_roots_views_and_strided_reshapes():
    after = _run(pl.parse(VIEWS_BEFORE), init_mem_ref())
    ir.assert_structural_equal(after, ViewsAfterInitMemRef)


@pl.program
class ViewsAfterAllocation:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], r: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 128], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", 0, 8192, address=0)] = (
            pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec))
        hi: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", 1280, 2048, address=1280)] = (
            pl.tile.slice(t, [8, 64], [2, 64]))
        sq: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.sq", 0, 2048, address=8192)] = (
            pl.tile.reshape(hi, [16, 32]))
        # a dynamic offset cannot be a constant address: the bare base address (upstream behaviour, #1640)
        row: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", r * 128 * 4, 512, address=0)] = (
            pl.tile.slice(t, [1, 128], [r, 0]))
        # y overwrites its dying operand sq in place (same shape, in-place-safe); t is still live (row)
        y: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.sq", 0, 2048, address=8192)] = (
            pl.tile.adds(sq, 1.0))
        z: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.z", 0, 512, address=10240)] = (
            pl.tile.muls(row, 2.0))
        out_1: pl.Tensor[[16, 32], pl.FP32] = pl.store(y, [0, 0], out)
        out2_1: pl.Tensor[[1, 128], pl.FP32] = pl.store(z, [0, 0], out2)  # noqa: F841
        return out_1


def test_full_memory_planning_of_views():
    after = _run(pl.parse(VIEWS_BEFORE), init_mem_ref(), memory_reuse(), allocate_memory_addr())
    ir.assert_structural_equal(after, ViewsAfterAllocation)


# --- MemoryReuse ------------------------------------------------------------------------------------

CHAIN_BEFORE = """
import tilefold.language as pl


@pl.program
class Chain:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(hi, 2.0)
        b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(b, 1.0)
        out = pl.store(c, [0, 0], out)
        return out
"""


@pl.program
class ChainAfterReuse:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", 0, 8192)] = pl.tile.load(
            x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", 256, 4096)] = pl.tile.slice(
            t, [16, 64], [0, 64])
        # hi is a view: `a` may not write over its (live) source while reading it
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.a", 0, 4096)] = pl.tile.muls(hi, 2.0)
        # t's group died at `a`: b takes its storage, c then overwrites b in place
        b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", 0, 4096)] = pl.tile.exp(a)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", 0, 4096)] = pl.tile.adds(b, 1.0)
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(c, [0, 0], out)
        return out_1


def test_memory_reuse_shares_dead_storage():
    after = _run(pl.parse(CHAIN_BEFORE), init_mem_ref(), memory_reuse())
    ir.assert_structural_equal(after, ChainAfterReuse)


EXTRACT_BEFORE = """
import tilefold.language as pl


@pl.program
class Extract:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(a, 0, 0, shape=[16, 64], target_memory=pl.Mem.Vec)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(b, 2.0)
        out = pl.store(c, [0, 0], out)
        return out
"""


@pl.program
class ExtractAfterReuse:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.a", 0, 4096)] = pl.tile.load(
            x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        # tile.extract is not_inplace_safe: never on its dying input's storage, although it has the same size
        b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.b", 0, 4096)] = pl.tile.extract(
            a, 0, 0, shape=[16, 64], target_memory=pl.Mem.Vec)
        # a died at the extract: the next tile of its size takes its storage
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.a", 0, 4096)] = pl.tile.muls(b, 2.0)
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(c, [0, 0], out)
        return out_1


def test_memory_reuse_respects_not_inplace_safe():
    after = _run(pl.parse(EXTRACT_BEFORE), init_mem_ref(), memory_reuse())
    ir.assert_structural_equal(after, ExtractAfterReuse)


# --- AllocateMemoryAddr -----------------------------------------------------------------------------

CUBE_BEFORE = """
import tilefold.language as pl


@pl.program
class Cube:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 40], pl.BF16], w: pl.Tensor[[40, 16], pl.BF16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], out2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        xm: pl.Tile[[16, 40], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 40], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[40, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [40, 16], target_memory=pl.Mem.Mat)
        a: pl.Tile[[16, 40], pl.BF16, pl.Mem.Left] = pl.tile.extract(xm, 0, 0, shape=[16, 40], target_memory=pl.Mem.Left)
        b: pl.Tile[[40, 16], pl.BF16, pl.Mem.Right] = pl.tile.extract(wm, 0, 0, shape=[40, 16], target_memory=pl.Mem.Right)
        c1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
        c2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c1, a, b)
        c3: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
        out = pl.store(c2, [0, 0], out)
        out2 = pl.store(c3, [0, 0], out2)
        return out
"""


@pl.program
class CubeAfterAllocation:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 40], pl.BF16], w: pl.Tensor[[40, 16], pl.BF16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
               out2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        # Mat: 1280 bytes, then the next storage at the next 32-byte boundary
        xm: pl.Tile[[16, 40], pl.BF16, pl.Mem.Mat, pl.MemRef(pl.Mem.Mat, "kernel.xm", 0, 1280, address=0)] = (
            pl.tile.load(x, [0, 0], [16, 40], target_memory=pl.Mem.Mat))
        wm: pl.Tile[[40, 16], pl.BF16, pl.Mem.Mat, pl.MemRef(pl.Mem.Mat, "kernel.wm", 0, 1280, address=1280)] = (
            pl.tile.load(w, [0, 0], [40, 16], target_memory=pl.Mem.Mat))
        a: pl.Tile[[16, 40], pl.BF16, pl.Mem.Left, pl.MemRef(pl.Mem.Left, "kernel.a", 0, 1280, address=0)] = (
            pl.tile.extract(xm, 0, 0, shape=[16, 40], target_memory=pl.Mem.Left))
        b: pl.Tile[[40, 16], pl.BF16, pl.Mem.Right, pl.MemRef(pl.Mem.Right, "kernel.b", 0, 1280, address=0)] = (
            pl.tile.extract(wm, 0, 0, shape=[40, 16], target_memory=pl.Mem.Right))
        # Acc: whole 16x16 fractals, 512-byte aligned; matmul_acc writes through its accumulator
        c1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc, pl.MemRef(pl.Mem.Acc, "kernel.c1", 0, 1024, address=0)] = (
            pl.tile.matmul(a, b))
        c2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc, pl.MemRef(pl.Mem.Acc, "kernel.c1", 0, 1024, address=0)] = (
            pl.tile.matmul_acc(c1, a, b))
        c3: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc, pl.MemRef(pl.Mem.Acc, "kernel.c3", 0, 1024, address=1024)] = (
            pl.tile.matmul(a, b))
        out_1: pl.Tensor[[16, 16], pl.FP32] = pl.store(c2, [0, 0], out)
        out2_1: pl.Tensor[[16, 16], pl.FP32] = pl.store(c3, [0, 0], out2)  # noqa: F841
        return out_1


def test_allocate_memory_addr_aligns_per_space():
    after = _run(pl.parse(CUBE_BEFORE), init_mem_ref(), memory_reuse(), allocate_memory_addr())
    ir.assert_structural_equal(after, CubeAfterAllocation)


def test_structural_equality_sees_a_wrong_address():
    """The comparison is not vacuous: the same program with one address changed differs."""
    after = _run(pl.parse(CUBE_BEFORE), init_mem_ref(), memory_reuse(), allocate_memory_addr())
    wrong = pl.parse(CubeAfterAllocation.as_python().replace("address=1024", "address=1536"))
    with pytest.raises(ValueError, match="address differs: 1024 vs 1536"):
        ir.assert_structural_equal(after, wrong)


# --- out of memory ----------------------------------------------------------------------------------

OOM = """import tilefold.language as pl


@pl.program
class Big:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[128, 256], pl.FP32],
               out: pl.Out[pl.Tensor[[128, 256], pl.FP32]]) -> pl.Tensor[[128, 256], pl.FP32]:
        t: pl.Tile[[128, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [128, 256], target_memory=pl.Mem.Vec)
        e: pl.Tile[[128, 256], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 0, shape=[128, 256], target_memory=pl.Mem.Vec)
        y: pl.Tile[[128, 256], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, e)
        out = pl.store(y, [0, 0], out)
        return out
"""


def test_out_of_memory_points_at_the_allocation_that_overflows(tmp_path):
    path = tmp_path / "big.py"
    path.write_text(OOM)
    prog = pl.parse_file(str(path))
    with pytest.raises(TilefoldError) as exc:
        _run(prog, init_mem_ref(), memory_reuse(), allocate_memory_addr())
    err = exc.value
    # t (128 KiB) fits the 192 KiB UB; e, live at the same time, is the allocation that crosses the end
    line = next(i for i, text in enumerate(OOM.splitlines(), 1) if text.lstrip().startswith("e:"))
    assert err.span is not None and err.span.filename == str(path) and err.span.line == line
    assert "'kernel'" in err.message and "Vec" in err.message and "tile 'e'" in err.message
    assert "262144" in err.message and "196608" in err.message
    assert f"{path}:{line}:" in str(err)
