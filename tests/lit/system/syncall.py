# pl.system barrier, fence and cache maintenance: the IR keeps them as statements, PTO lowers them to
# scalar-pipe instructions, the launch size is the device query resolved on the target, and a run orders the
# blocks' phases; a literal partial launch of a hard barrier is refused at compile time.
# RUN: tilefold compile %s --emit ir | filecheck %s --check-prefix=IR
# RUN: tilefold compile %s --emit pto | filecheck %s --check-prefix=PTO
# RUN: tilefold run %s --inputs random | filecheck %s --check-prefix=SIM

# IR: system.cacheinvalid()
# IR: system.fence()
# IR: system.syncall(
# IR-SAME: core_type="mix"
# PTO: cacheinvalid gm
# PTO-NEXT: fence gm
# PTO-NEXT: syncall hard, mix
# PTO: cacheinvalid @mid
# SIM: result MATCH

import tilefold.language as pl


@pl.program
class Exchange:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[24, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[24, 64], pl.FP32]],
               out: pl.Out[pl.Tensor[[24, 64], pl.FP32]]) -> pl.Tensor[[24, 64], pl.FP32]:
        b = pl.tile.get_block_idx()
        t = pl.load(a, [b, 0], [1, 64])
        mid = pl.store(t, [b, 0], mid)
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(core_type="mix")
        pl.system.cacheinvalid(mid, [(b + 1) % 24, 0])
        nxt = pl.load(mid, [(b + 1) % 24, 0], [1, 16])
        out = pl.store(nxt, [b, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[24, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[24, 64], pl.FP32]],
             out: pl.Out[pl.Tensor[[24, 64], pl.FP32]]) -> pl.Tensor[[24, 64], pl.FP32]:
        with pl.spmd(pl.system.available_cluster_count()):
            out = self.kernel(a, mid, out)
        return out
