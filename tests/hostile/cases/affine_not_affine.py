# exit: 2
# expect: not affine
# expect: affine_not_affine.py:
# argv: opt {file}
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.custom(
            "hostile.k", ins=[t], outs=[init],
            indexing_maps=[pl.affine_map("(d0, d1) -> (d0 * d1, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")],
            iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, pipe="PIPE_V")
        out = pl.store(t, [0, 0], out)
        return out
