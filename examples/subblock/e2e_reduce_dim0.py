# E2E (seed: general custom-op case "dim0 reduction", Mix Cube/Vector): the cube computes c = a @ b; an
# AIV kernel sums c over dim 0 with iterators [reduction, parallel] and result map (d0, d1) -> (0, d1).
# The reduced dim 0 stays whole; TileAndBindSubBlock splits dim 1: each sub-block reduces a [32, 32]
# column half into a [1, 32] half of the result.
# Kernel semantics (tilefold.custom.library): e2e.col_sum(x) = x.sum(axis=0, keepdims=True).
import tilefold.language as pl


@pl.program
class E2EReduceDim0:
    @pl.function(type=pl.FunctionType.InCore)
    def cube(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        ta: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        c = pl.store(acc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.AIV)
    def vector(self, c: pl.Tensor[[32, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(c, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 64], dtype=pl.FP32,
                                                                     target_memory=pl.Mem.Vec)
        y = pl.tile.custom("e2e.col_sum", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (0, d1)")],
                           iterator_types=[pl.reduction, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
        c = pl.create_tensor([32, 64], dtype=pl.FP32)
        c = self.cube(a, b, c)
        out = self.vector(c, out)
        return out
