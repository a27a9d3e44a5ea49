# E2E (seed: general custom-op case "multi-output", Mix Cube/Vector): the cube computes c = a @ b; ONE
# custom op returns two results (the positive and the negative part of c). TileAndBindSubBlock splits
# dim 0: both results are tiled with the same [16, 64] range, and the external kernel runs once per
# sub-block.
# Kernel semantics (tilefold.custom.library): e2e.pos_neg(x) = (max(x, 0), min(x, 0)).
import tilefold.language as pl


@pl.program
class E2EMultiOutput:
    @pl.function(type=pl.FunctionType.InCore)
    def cube(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        ta: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        c = pl.store(acc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.AIV)
    def vector(self, c: pl.Tensor[[32, 64], pl.FP32], pos: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
               neg: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> tuple[pl.Tensor[[32, 64], pl.FP32], pl.Tensor[[32, 64], pl.FP32]]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(c, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        init_p: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([32, 64], dtype=pl.FP32,
                                                                        target_memory=pl.Mem.Vec)
        init_n: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([32, 64], dtype=pl.FP32,
                                                                        target_memory=pl.Mem.Vec)
        yp, yn = pl.tile.custom("e2e.pos_neg", ins=[t], outs=[init_p, init_n],
                                indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                               pl.affine_map("(d0, d1) -> (d0, d1)"),
                                               pl.affine_map("(d0, d1) -> (d0, d1)")],
                                iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        pos = pl.store(yp, [0, 0], pos)
        neg = pl.store(yn, [0, 0], neg)
        return pos, neg

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
             pos: pl.Out[pl.Tensor[[32, 64], pl.FP32]], neg: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> tuple[pl.Tensor[[32, 64], pl.FP32], pl.Tensor[[32, 64], pl.FP32]]:
        c = pl.create_tensor([32, 64], dtype=pl.FP32)
        c = self.cube(a, b, c)
        pos, neg = self.vector(c, pos, neg)
        return pos, neg
