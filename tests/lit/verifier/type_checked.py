# TypeChecked: the parser infers every type (an annotation that contradicts inference is a parse error) ...
# RUN: sed -e 's/t = pl.tile.load(x, \[0, 0\], \[16, 64\])/t: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])/' %s > %t.py
# RUN: not tilefold opt %t.py 2>&1 | filecheck %s --check-prefix=PARSE
# ... so the verifier is exercised through `test-wrong-call-type`, a test-only fault injector that changes
# a call's result dtype while claiming to keep TypeChecked.
# RUN: not tilefold opt %s --passes test-wrong-call-type --verify 2>&1 | filecheck %s

import tilefold.language as pl


@pl.program
class Types:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        y = pl.tile.muls(t, 2.0)
        out = pl.store(y, [0, 0], out)
        return out

# PARSE: error: {{.*}}FP16

# CHECK: type_checked.py:16:9
# CHECK: error: after pass TestWrongCallType (which must produce TypeChecked): TypeChecked violated in function 'kernel': the tile.load call's type has dtype FP16 but inference gives FP32
# CHECK: hint: build calls with tilefold.ops.make_call
