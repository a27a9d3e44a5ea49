# Views share their source's storage: a constant window at base + byte offset (folded into the address), a
# dynamic window at the bare base address (upstream behaviour behind #1640), and a reshape of a strided
# window gets storage of its own (it cannot reuse the window's bytes).
# RUN: tilefold opt %s --passes init-mem-ref,memory-reuse,allocate-memory-addr | filecheck %s
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

# CHECK-LABEL: def kernel(
# CHECK: t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", 0, 8192, address=0)] = pl.tile.load(
# CHECK-NEXT: hi: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", 1280, 2048, address=1280)] = pl.tile.slice(t,
# CHECK-NEXT: sq: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.sq", 0, 2048, address=8192)] = pl.tile.reshape(hi,
# CHECK-NEXT: row: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.t", r * 128 * 4, 512, address=0)] = pl.tile.slice(t, [1, 128], [r, 0])
# CHECK-NEXT: y: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.sq", 0, 2048, address=8192)] = pl.tile.adds(sq, 1.0)
# CHECK-NEXT: z: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "kernel.z", 0, 512, address=10240)] = pl.tile.muls(row, 2.0)
