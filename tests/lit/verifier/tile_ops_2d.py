# A rank-3 tile inside an InCore kernel violates TileOps2D.
# RUN: not tilefold opt %s --verify 2>&1 | filecheck %s
# The pass route: CanonicalizeTileSlice requires TileOps2D, so --verify rejects the input before it runs.
# RUN: not tilefold opt %s --verify --passes canonicalize-tile-slice 2>&1 | filecheck %s --check-prefix=PASS
# Checking only TileOps2D on the input reports the same violation.
# RUN: not tilefold opt %s --verify-properties TileOps2D 2>&1 | filecheck %s --check-prefix=ONLY
# After FlattenTileNdTo2D the property holds on the output.
# RUN: tilefold opt %s --passes flatten-tile-nd-to-2d --verify-properties TileOps2D | filecheck %s --check-prefix=FLAT

import tilefold.language as pl


@pl.program
class ThreeD:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[2, 16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]) -> pl.Tensor[[2, 16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0, 0], [2, 16, 64])
        y = pl.tile.exp(t)
        out = pl.store(y, [0, 0, 0], out)
        return out

# CHECK: tile_ops_2d.py:18:9
# CHECK-NEXT: t = pl.tile.load(x, [0, 0, 0], [2, 16, 64])
# CHECK: error: input program: TileOps2D violated in function 'kernel': %t is a rank-3 tile
# CHECK-SAME: InCore kernels need tiles of rank <= 2
# CHECK-NEXT: at: t: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64]
# CHECK: %y is a rank-3 tile
# CHECK: hint: run FlattenTileNdTo2D
# CHECK-NOT: Traceback

# PASS: error: before pass CanonicalizeTileSlice (which requires
# PASS-SAME: TileOps2D
# PASS-SAME: ): TileOps2D violated in function 'kernel'

# ONLY: error: input program: TileOps2D violated in function 'kernel'

# FLAT: class ThreeD:
# FLAT: pl.Tile[[32, 64], pl.FP32
