# E2E (issue 9, "Done when"): a read-modify-write AIV kernel, acc += 1 on an InOut tensor. It is ONE
# logical execution: golden adds 1 once. Split, each sub-block updates its own 64 rows; not split (pass
# off or rolled back), the store is limited to sub-block 0 and sub-block 1's load is dead, so the result
# is +1 either way and the race detector has nothing to report.
import tilefold.language as pl


@pl.program
class E2EAccPlusOne:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, acc: pl.InOut[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        t: pl.Tile[[128, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(acc, [0, 0], [128, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[128, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        acc = pl.store(u, [0, 0], acc)
        return acc
