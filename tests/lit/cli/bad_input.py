# Bad input: a one-paragraph error with the location and a hint, exit status non-zero, no traceback.
# RUN: not tilefold opt %s 2>&1 | filecheck %s
# RUN: not tilefold opt %s --verify --print-after-all 2>&1 | filecheck %s
# RUN: not tilefold opt %s.missing 2>&1 | filecheck %s --check-prefix=MISSING
# RUN: not tilefold opt %s --passes no-such-pass 2>&1 | filecheck %s --check-prefix=USAGE
# RUN: not tilefold opt %s --verify-properties NoSuchProperty 2>&1 | filecheck %s --check-prefix=PROP
# RUN: not tilefold frobnicate 2>&1 | filecheck %s --check-prefix=CMD

import tilefold.language as pl


@pl.program
class Broken:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        y = pl.tile.no_such_op(t)
        out = pl.store(y, [0, 0], out)
        return out

# CHECK-NOT: Traceback
# CHECK: bad_input.py:18:
# CHECK-NEXT: y = pl.tile.no_such_op(t)
# CHECK: error: {{.*}}no_such_op
# CHECK-NOT: Traceback

# MISSING: error: cannot read '{{.*}}bad_input.py.missing': no such file
# MISSING-NEXT: hint:

# USAGE: tilefold opt: error: unknown pass 'no-such-pass'; known passes: {{.*}}canonicalize-tile-slice

# PROP: tilefold opt: error: unknown IR property 'NoSuchProperty'; known: SSAForm, TypeChecked

# CMD: usage: tilefold
# CMD: invalid choice: 'frobnicate'
