# E2E (seed: general custom-op case "dim1 reduction", Mix Cube/Vector): the cube computes c = a @ b; an
# AIV kernel sums c over dim 1 with iterators [parallel, reduction] and result map (d0, d1) -> (d0, 0).
# The reduced dim 1 stays whole; TileAndBindSubBlock splits dim 0: each sub-block reduces [16, 64] rows
# into a [16, 1] half of the result.
# Kernel semantics (tilefold.custom.library): e2e.row_sum(x) = x.sum(axis=1, keepdims=True).
import tilefold.language as pl


@pl.program
class E2EReduceDim1:
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
               out: pl.Out[pl.Tensor[[32, 1], pl.FP32]]) -> pl.Tensor[[32, 1], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(c, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[32, 1], pl.FP32, pl.Mem.Vec] = pl.tile.create([32, 1], dtype=pl.FP32,
                                                                     target_memory=pl.Mem.Vec)
        y = pl.tile.custom("e2e.row_sum", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, 0)")],
                           iterator_types=[pl.parallel, pl.reduction], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[32, 1], pl.FP32]]) -> pl.Tensor[[32, 1], pl.FP32]:
        c = pl.create_tensor([32, 64], dtype=pl.FP32)
        c = self.cube(a, b, c)
        out = self.vector(c, out)
        return out
