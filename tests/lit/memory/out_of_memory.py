# A function that does not fit a memory space: the error names the function, the space, the bytes needed
# and available, and points at the allocation that crosses the end.
# RUN: not tilefold opt %s --passes init-mem-ref,memory-reuse,allocate-memory-addr 2>&1 | filecheck %s
import tilefold.language as pl


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

# CHECK: out_of_memory.py:13:9
# CHECK-NEXT: e: pl.Tile[[128, 256], pl.FP32, pl.Mem.Vec] = pl.tile.extract(
# CHECK: error: function 'kernel' does not fit in Vec: it needs 262144 bytes but Ascend910B has 196608 bytes available
# CHECK-SAME: the first allocation past the end is tile 'e' (131072 bytes at Vec address 131072)
# CHECK: hint: process the data in smaller tiles
