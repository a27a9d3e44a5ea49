# --print-after-all prints the IR after every pass (with a header naming the pass); the last dump is the final
# IR, which is not printed a second time.
# RUN: tilefold opt %s --passes canonicalize-tile-slice,tile-and-bind-sub-block --print-after-all | filecheck %s
# Without the flag only the final IR is printed.
# RUN: tilefold opt %s --passes canonicalize-tile-slice,tile-and-bind-sub-block | filecheck %s --check-prefix=FINAL

import tilefold.language as pl


@pl.program
class Dump:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 128])
        hi = pl.tile.slice(t, [16, 64], [0, 64])
        y = pl.tile.muls(hi, 0.5)
        out = pl.store(y, [0, 0], out)
        return out

# CHECK: # ----- IR after CanonicalizeTileSlice (canonicalize-tile-slice)
# CHECK-NEXT: import tilefold.language as pl
# CHECK: class Dump:
# CHECK: pl.tile.muls(
# CHECK: # ----- IR after TileAndBindSubBlock (tile-and-bind-sub-block)
# CHECK-NEXT: import tilefold.language as pl
# CHECK: class Dump:
# CHECK: pl.tile.get_subblock_idx()
# CHECK-NOT: class Dump:

# FINAL-NOT: # ----- IR after
# FINAL: class Dump:
# FINAL-NOT: class Dump:
