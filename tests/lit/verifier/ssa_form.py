# SSAForm: the DSL parser renames re-assignments into SSA form, so the input verifies clean ...
# RUN: tilefold opt %s --verify | filecheck %s --check-prefix=INPUT
# ... and a violation can only come from a pass. `test-duplicate-def` is a test-only fault injector that
# re-binds the first assigned variable while claiming to produce SSAForm; --verify must reject its output.
# RUN: not tilefold opt %s --passes test-duplicate-def --verify 2>&1 | filecheck %s
# Without --verify nothing checks, and the broken IR is printed.
# RUN: tilefold opt %s --passes test-duplicate-def | filecheck %s --check-prefix=NOVERIFY

import tilefold.language as pl


@pl.program
class Reassign:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        t = pl.tile.exp(t)
        out = pl.store(t, [0, 0], out)
        return out

# INPUT: t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(
# INPUT-NEXT: [[T1:[a-z_0-9]+]]: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)

# CHECK: ssa_form.py:17:9
# CHECK: error: after pass TestDuplicateDef (which must produce SSAForm): SSAForm violated in function 'kernel': %t is defined again
# CHECK-NEXT: at: t: {{.*}} = pl.tile.load(x, [0, 0], [16, 64]
# CHECK: hint: every variable must be defined exactly once
# CHECK-NOT: Traceback

# NOVERIFY-COUNT-2: = pl.tile.load(x, [0, 0], [16, 64]
