# Vector work around a custom op: a row-max normalisation, a custom op adding a broadcast bias column
# ((d0, d1) -> (d0, 0)), and an exp. TileAndBindSubBlock splits all of it on dim 0 (the row-max reduces
# dim 1): loads, the reduction, the broadcast, the custom op and the store each work on [16, 64] halves.
# Kernel semantics: example.add_bias(x, b) = x + b (b is [rows, 1]).
import tilefold.language as pl


@pl.program
class BiasCustomChain:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], bias: pl.Tensor[[32, 1], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        b: pl.Tile[[32, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(bias, [0, 0], [32, 1], target_memory=pl.Mem.Vec)
        m: pl.Tile[[32, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(t)
        c: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(t, m)
        init: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([32, 64], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom("example.add_bias", ins=[c, b], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, 0)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        z: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(y)
        out = pl.store(z, [0, 0], out)
        return out
