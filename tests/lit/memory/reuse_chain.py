# MemoryReuse: a dead group's storage is taken over; a view keeps its source alive while it is read; a
# not_inplace_safe result (tile.extract) never lands on its input; an in-place-safe op may.
# RUN: tilefold opt %s --passes init-mem-ref,memory-reuse | filecheck %s
# RUN: tilefold opt %s --passes init-mem-ref | filecheck %s --check-prefix=INIT
import tilefold.language as pl


@pl.program
class Chain:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(hi, 2.0)
        b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(a, 0, 0, shape=[16, 64], target_memory=pl.Mem.Vec)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(b)
        out = pl.store(c, [0, 0], out)
        return out

# INIT: t: {{.*}}pl.MemRef(pl.Mem.Vec, "kernel.t", 0, 8192)]
# INIT: hi: {{.*}}pl.MemRef(pl.Mem.Vec, "kernel.t", 256, 4096)]
# INIT: a: {{.*}}pl.MemRef(pl.Mem.Vec, "kernel.a", 0, 4096)]
# INIT: b: {{.*}}pl.MemRef(pl.Mem.Vec, "kernel.b", 0, 4096)]
# INIT: c: {{.*}}pl.MemRef(pl.Mem.Vec, "kernel.c", 0, 4096)]

# CHECK: hi: {{.*}}pl.MemRef(pl.Mem.Vec, "kernel.t", 256, 4096)]
# `a` reads the view hi: t is live, a gets its own storage
# CHECK-NEXT: a: {{.*}}pl.MemRef(pl.Mem.Vec, "kernel.a", 0, 4096)]
# the extract may not write over its input a; t's group is dead by now and is reused
# CHECK-NEXT: b: {{.*}}pl.MemRef(pl.Mem.Vec, "kernel.t", 0, 4096)] = pl.tile.extract(a,
# exp is in-place safe and b dies at it: c overwrites b
# CHECK-NEXT: c: {{.*}}pl.MemRef(pl.Mem.Vec, "kernel.t", 0, 4096)] = pl.tile.exp(b)
