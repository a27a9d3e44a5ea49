# E2E (seed: general custom-op case "macro", Mix Cube/Vector): the cube computes c = a @ b; an AIV kernel
# runs a custom MACRO op (pl.tile.custom_macro) with identity maps on [parallel, parallel] and no sync
# arguments, so TileAndBindSubBlock splits it like a custom op: dim 0, [16, 64] per sub-block.
# Kernel semantics (tilefold.custom.library): e2e.double_exp(x) = 2 * exp(x) (x is clamped to [-4, 4]
# first: pl.tile.mins / maxs, vector work split with it).
import tilefold.language as pl


@pl.program
class E2EMacro:
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
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(c, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        lo: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mins(t, 4.0)
        x: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.maxs(lo, -4.0)
        init: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([32, 64], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom_macro("e2e.double_exp", ins=[x], outs=[init],
                                 indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                                pl.affine_map("(d0, d1) -> (d0, d1)")],
                                 iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, pipe="PIPE_V")
        out = pl.store(y, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        c = pl.create_tensor([32, 64], dtype=pl.FP32)
        c = self.cube(a, b, c)
        out = self.vector(c, out)
        return out
