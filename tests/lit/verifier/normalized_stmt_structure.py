# NormalizedStmtStructure: parsed bodies are always flat SeqStmts; `test-nested-seq` (test-only fault
# injector) nests the first two statements in a SeqStmts while claiming to keep the property.
# RUN: tilefold opt %s --verify-properties NormalizedStmtStructure | filecheck %s --check-prefix=INPUT
# RUN: not tilefold opt %s --passes test-nested-seq --verify 2>&1 | filecheck %s

import tilefold.language as pl


@pl.program
class Nest:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        y = pl.tile.relu(t)
        out = pl.store(y, [0, 0], out)
        return out

# INPUT: class Nest:

# CHECK: error: after pass TestNestedSeq (which must produce NormalizedStmtStructure): NormalizedStmtStructure violated in function 'kernel': a SeqStmts is nested directly inside the function body
# CHECK-NEXT: at: {{.*}}tile.load(
# CHECK-NEXT: {{.*}}tile.relu(
# CHECK: hint: make every body a SeqStmts
