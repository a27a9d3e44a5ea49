# A 200 x 600 x 200 FP16 matmul: no L0 tile size divides M, N or K. AutoTileMatmulL0 covers each axis with
# pieces on the 16-element fractal grid plus one smaller tail piece: [112, 112] output blocks with an 88-row /
# 88-column edge, and a K pipeline of full steps followed by one tail step.
#   tilefold run examples/cube/matmul_tail_fp16.py
#   tilefold compile examples/cube/matmul_tail_fp16.py --print-after-all
import tilefold.language as pl


@pl.program
class MatmulTail:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[200, 600], pl.FP16], b: pl.Tensor[[600, 200], pl.FP16],
               out: pl.Out[pl.Tensor[[200, 200], pl.FP32]]) -> pl.Tensor[[200, 200], pl.FP32]:
        ta: pl.Tile[[200, 600], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [200, 600], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[600, 200], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [600, 200], target_memory=pl.Mem.Mat)
        c: pl.Tile[[200, 200], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        return out
