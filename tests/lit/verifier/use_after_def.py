# UseAfterDef: the parser rejects a use after a loop of a name the loop may not define (here: a loop of zero
# trips; a name of a loop body is otherwise its last iteration's value, as in Python) with its own error ...
# RUN: sed -e 's/pl.range(0, 2,/pl.range(0, 0,/' %s > %t.zero.py
# RUN: not tilefold opt %t.zero.py 2>&1 | filecheck %s --check-prefix=PARSE
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

# PARSE: use_after_def.py{{.*}}:20:9
# PARSE: error: 't' is first defined inside this pl.range loop (line 21) and used after it, but it runs zero times

# CHECK: error: after pass TestUseBeforeDef (which must produce UseAfterDef): UseAfterDef violated in function 'kernel': %a is used before its definition
# CHECK-NEXT: at: b: {{.*}}pl.tile.exp(a)
# CHECK: hint: define a value before using it
