# E2E (issue 9 §2, follow-up): a row-block loop that reads rows of o shifted by SHIFT while it writes rows
# [16k, 16k + 16) of o. Iteration k loads rows [16k + SHIFT, 16k + SHIFT + 16). With SHIFT = -8 that is a
# read-after-write across iterations (rows [16k - 8, 16k) were stored by iteration k - 1); with SHIFT = +8 the
# load reads rows iteration k + 1 will overwrite. Split on rows, each iteration's halves are 8 rows, and
# sub-block 1 (rows [16k + 8, 16k + 16)) would read rows [16k - 8 + 8, 16k + 8) that sub-block 0 writes in
# the same iteration, with nothing ordering the two sub-blocks: the rows are refused. Split on columns each
# sub-block reads and writes only its own 32 columns, in program order: safe.
import tilefold.language as pl

SHIFT = 8
FIRST = 0
ROWS = 80


@pl.program
class E2ERowBlockShift:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, o: pl.InOut[pl.Tensor[[ROWS, 64], pl.FP32]]) -> pl.Tensor[[ROWS, 64], pl.FP32]:
        for k, (acc,) in pl.range(FIRST, FIRST + 4, init_values=(o,)):
            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(acc, [k * 16 + SHIFT, 0], [16, 64],
                                                                     target_memory=pl.Mem.Vec)
            y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
            acc2 = pl.store(y, [k * 16, 0], acc)
            acc_out = pl.yield_(acc2)
        return acc_out
