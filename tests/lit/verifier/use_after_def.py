# UseAfterDef: the parser rejects a use outside its loop scope with its own error ...
# RUN: not tilefold opt %s 2>&1 | filecheck %s --check-prefix=PARSE
# ... so the verifier is exercised through `test-use-before-def`, a test-only fault injector that moves a
# use above its definition while claiming to produce UseAfterDef.
# RUN: sed -e 's/out = pl.store(t, \[0, 0\], out)/out = pl.store(res, [0, 0], out)/' %s > %t.py
# RUN: not tilefold opt %t.py --passes test-use-before-def --verify 2>&1 | filecheck %s

import tilefold.language as pl


@pl.program
class Scopes:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a = pl.tile.load(x, [0, 0], [16, 64])
        b = pl.tile.exp(a)
        for _i, (acc,) in pl.range(0, 2, init_values=(b,)):
            t = pl.tile.add(acc, a)
            res = pl.yield_(t)  # noqa: F841 (only t escapes, on purpose)
        out = pl.store(t, [0, 0], out)
        return out

# PARSE: use_after_def.py:21:24
# PARSE: error: use of undefined name 't'

# CHECK: error: after pass TestUseBeforeDef (which must produce UseAfterDef): UseAfterDef violated in function 'kernel': %a is used before its definition
# CHECK-NEXT: at: b: {{.*}}pl.tile.exp(a)
# CHECK: hint: define a value before using it
