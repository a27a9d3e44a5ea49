# AllocateMemoryAddr lays each space out sequentially with the target's alignment: Mat 32 B, Acc 512 B
# (whole 16x16 fractals). matmul_acc writes through its accumulator: same storage, same address.
# RUN: tilefold opt %s --passes init-mem-ref,memory-reuse,allocate-memory-addr | filecheck %s
import tilefold.language as pl


@pl.program
class Cube:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[20, 40], pl.BF16], w: pl.Tensor[[40, 24], pl.BF16],
               out: pl.Out[pl.Tensor[[20, 24], pl.FP32]],
               out2: pl.Out[pl.Tensor[[20, 24], pl.FP32]]) -> pl.Tensor[[20, 24], pl.FP32]:
        xm: pl.Tile[[20, 40], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [20, 40], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[40, 24], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [40, 24], target_memory=pl.Mem.Mat)
        a: pl.Tile[[20, 40], pl.BF16, pl.Mem.Left] = pl.tile.extract(xm, 0, 0, shape=[20, 40], target_memory=pl.Mem.Left)
        b: pl.Tile[[40, 24], pl.BF16, pl.Mem.Right] = pl.tile.extract(wm, 0, 0, shape=[40, 24], target_memory=pl.Mem.Right)
        c1: pl.Tile[[20, 24], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
        c2: pl.Tile[[20, 24], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c1, a, b)
        c3: pl.Tile[[20, 24], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
        out = pl.store(c2, [0, 0], out)
        out2 = pl.store(c3, [0, 0], out2)
        return out

# 20 x 40 BF16 = 1600 B; the next Mat storage starts at the next 32-byte boundary (1600)
# CHECK: xm: {{.*}}pl.MemRef(pl.Mem.Mat, "kernel.xm", 0, 1600, address=0)]
# CHECK-NEXT: wm: {{.*}}pl.MemRef(pl.Mem.Mat, "kernel.wm", 0, 1920, address=1600)]
# CHECK-NEXT: a: {{.*}}pl.MemRef(pl.Mem.Left, "kernel.a", 0, 1600, address=0)]
# CHECK-NEXT: b: {{.*}}pl.MemRef(pl.Mem.Right, "kernel.b", 0, 1920, address=0)]
# Acc pads 20 x 24 to 32 x 32 fractals: 4096 B
# CHECK-NEXT: c1: {{.*}}pl.MemRef(pl.Mem.Acc, "kernel.c1", 0, 4096, address=0)]
# CHECK-NEXT: c2: {{.*}}pl.MemRef(pl.Mem.Acc, "kernel.c1", 0, 4096, address=0)] = pl.tile.matmul_acc(c1, a, b)
# CHECK-NEXT: c3: {{.*}}pl.MemRef(pl.Mem.Acc, "kernel.c3", 0, 4096, address=4096)]
