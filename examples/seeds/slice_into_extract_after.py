"""Seed 1 (CanonicalizeTileSlice), "slice folded into tile.extract" -- After: the slice is gone and the
extract reads the loaded Mat tile directly."""
import tilefold.language as pl


@pl.program
class SliceIntoExtractAfter:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 512], pl.INT8], w: pl.Tensor[[512, 64], pl.INT8],
               out: pl.Out[pl.Tensor[[32, 64], pl.INT32]]) -> pl.Tensor[[32, 64], pl.INT32]:
        x_mat: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [32, 512], target_memory=pl.Mem.Mat)
        w_mat: pl.Tile[[512, 64], pl.INT8, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [512, 64], target_memory=pl.Mem.Mat)
        c0: pl.Tile[[32, 64], pl.INT32, pl.Mem.Acc] = pl.tile.create(shape=[32, 64], dtype=pl.INT32,
                                                                     target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, 512, 256, init_values=(c0,), stage=2):
            a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(
                x_mat, 0, ko, shape=[32, 256], target_memory=pl.Mem.Left)
            b: pl.Tile[[256, 64], pl.INT8, pl.Mem.Right] = pl.tile.extract(
                w_mat, ko, 0, shape=[256, 64], target_memory=pl.Mem.Right)
            c_next: pl.Tile[[32, 64], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a, b)
            c_out: pl.Tile[[32, 64], pl.INT32, pl.Mem.Acc] = pl.yield_(c_next)
        out = pl.store(c_out, [0, 0], out)
        return out
