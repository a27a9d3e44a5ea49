# exit: 2
# expect: golden interpreter stopped after 20,000 steps
# expect: a while loop whose condition is still true
# expect: hang_while_true.py:15:
# argv: run {file} --max-steps 20000
import tilefold.language as pl


@pl.program
class Forever:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        for (acc,) in pl.while_(init_values=(t,)):
            pl.cond(True)
            nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(acc, 1.0)
            res: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(nxt)
        out = pl.store(res, [0, 0], out)
        return out
