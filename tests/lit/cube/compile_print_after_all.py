# `tilefold compile --print-after-all` shows every stage of the default pipeline: the input, the IR after each
# pass (under a header naming it), then the output. `tilefold opt --print-after-all` without --passes prints the
# input as the only stage, and does not repeat it as the final IR.
# RUN: tilefold compile %s --target Ascend910C --print-after-all | filecheck %s
# RUN: tilefold compile %s --target Ascend910C --print-after-all --emit ir | filecheck %s --check-prefix=IR
# RUN: tilefold opt %s --print-after-all | filecheck %s --check-prefix=OPT
import tilefold.language as pl


@pl.program
class Stages:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[2, 32, 128], pl.BF16], w: pl.Tensor[[2, 128, 64], pl.BF16],
               out: pl.Out[pl.Tensor[[2, 32, 64], pl.FP32]]) -> pl.Tensor[[2, 32, 64], pl.FP32]:
        ta: pl.Tile[[2, 32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 32, 128], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[2, 128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [2, 128, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[2, 32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        return out

# CHECK: # ----- IR at stage input -----
# CHECK: pl.tile.batch_matmul(ta, tb)
# CHECK: # ----- IR after FlattenTileNdTo2D (flatten-tile-nd-to-2d) -----
# CHECK: ta_page1: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(ta, [32, 128], [32, 0])
# CHECK: # ----- IR after AutoTileMatmulL0 (auto-tile-matmul-l0) (unchanged) -----
# CHECK: # ----- IR after CanonicalizeTileSlice (canonicalize-tile-slice) -----
# CHECK-NOT: ----- output
# CHECK: pl.tile.extract(ta, 32, 0, shape=[32, 128], target_memory=pl.Mem.Left)
# CHECK: # ----- IR after InferTileMemorySpace (infer-tile-memory-space)
# CHECK: # ----- IR after TileAndBindSubBlock (tile-and-bind-sub-block)
# CHECK: # ----- IR after InitMemRef (init-mem-ref) -----
# CHECK: # ----- IR after MemoryReuse (memory-reuse) -----
# CHECK: # ----- IR after AllocateMemoryAddr (allocate-memory-addr) -----
# CHECK: address=
# CHECK: # ----- output (pto) -----
# CHECK-NEXT: // PTO program Stages for Ascend910C
# CHECK: tmatmul %c_page1
# CHECK-NOT: # -----

# IR: # ----- IR at stage input -----
# IR: # ----- IR after AllocateMemoryAddr (allocate-memory-addr) -----
# IR: # ----- output (ir) -----
# IR-NEXT: import tilefold.language as pl
# IR: class Stages:
# IR-NOT: # -----

# OPT: # ----- IR at stage input -----
# OPT-NEXT: import tilefold.language as pl
# OPT: pl.tile.batch_matmul(ta, tb)
# OPT-NOT: # -----
# OPT-NOT: class Stages:
