# out = a @ b + bias with a 128 x 512 lhs (128 KiB, twice L0A). AutoTileMatmulL0 pipelines K: the first K step
# is tile.matmul_bias (the bias is added once), every later step tile.matmul_acc.
#   tilefold run examples/cube/matmul_bias_fp16.py
import tilefold.language as pl


@pl.program
class MatmulBias:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 512], pl.FP16], b: pl.Tensor[[512, 128], pl.FP16],
               bias: pl.Tensor[[1, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        ta: pl.Tile[[128, 512], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[512, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 128], target_memory=pl.Mem.Mat)
        tc: pl.Tile[[1, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(bias, [0, 0], [1, 128], target_memory=pl.Mem.Mat)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(ta, tb, tc)
        out = pl.store(c, [0, 0], out)
        return out
