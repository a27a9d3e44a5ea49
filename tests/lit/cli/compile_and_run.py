# `tilefold compile --emit ir|pto` and `tilefold run` drive the backend, the simulator and the golden
# reference from the command line.
# RUN: tilefold compile %s --emit pto | filecheck %s --check-prefix=PTO
# RUN: tilefold compile %s --emit ir | filecheck %s --check-prefix=IR
# RUN: tilefold run %s --inputs random | filecheck %s --check-prefix=SIM
# RUN: tilefold run %s --inputs random --no-enable-auto-bind-sub-block --block-dim 1 | filecheck %s --check-prefix=SIM
# RUN: not tilefold run %s --inputs %s.nope.npz 2>&1 | filecheck %s --check-prefix=NOINPUT

import tilefold.language as pl


@pl.program
class Scale:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        y = pl.tile.muls(t, 2.0)
        out = pl.store(y, [0, 0], out)
        return out

# PTO: tload
# PTO: tmuls
# PTO: tstore

# IR: class Scale:
# IR: pl.MemRef(

# SIM: result {{ +}}MATCH
# SIM: cycles

# NOINPUT: error: cannot read inputs '{{.*}}.nope.npz': no such file
