# exit: 2
# expect: golden interpreter stopped after 20,000 steps
# expect: nested_loops_90.py:
# argv: run {file} --max-steps 20000
import tilefold.language as pl


@pl.program
class Deep:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        for i0 in pl.range(2):
            for i1 in pl.range(2):
                for i2 in pl.range(2):
                    for i3 in pl.range(2):
                        for i4 in pl.range(2):
                            for i5 in pl.range(2):
                                for i6 in pl.range(2):
                                    for i7 in pl.range(2):
                                        for i8 in pl.range(2):
                                            for i9 in pl.range(2):
                                                for i10 in pl.range(2):
                                                    for i11 in pl.range(2):
                                                        for i12 in pl.range(2):
                                                            for i13 in pl.range(2):
                                                                for i14 in pl.range(2):
                                                                    for i15 in pl.range(2):
                                                                        for i16 in pl.range(2):
                                                                            for i17 in pl.range(2):
                                                                                for i18 in pl.range(2):
                                                                                    for i19 in pl.range(2):
                                                                                        for i20 in pl.range(2):
                                                                                            for i21 in pl.range(2):
                                                                                                for i22 in pl.range(2):
                                                                                                    for i23 in pl.range(2):
                                                                                                        for i24 in pl.range(2):
                                                                                                            for i25 in pl.range(2):
                                                                                                                for i26 in pl.range(2):
                                                                                                                    for i27 in pl.range(2):
                                                                                                                        for i28 in pl.range(2):
                                                                                                                            for i29 in pl.range(2):
                                                                                                                                for i30 in pl.range(2):
                                                                                                                                    for i31 in pl.range(2):
                                                                                                                                        for i32 in pl.range(2):
                                                                                                                                            for i33 in pl.range(2):
                                                                                                                                                for i34 in pl.range(2):
                                                                                                                                                    for i35 in pl.range(2):
                                                                                                                                                        for i36 in pl.range(2):
                                                                                                                                                            for i37 in pl.range(2):
                                                                                                                                                                for i38 in pl.range(2):
                                                                                                                                                                    for i39 in pl.range(2):
                                                                                                                                                                        for i40 in pl.range(2):
                                                                                                                                                                            for i41 in pl.range(2):
                                                                                                                                                                                for i42 in pl.range(2):
                                                                                                                                                                                    for i43 in pl.range(2):
                                                                                                                                                                                        for i44 in pl.range(2):
                                                                                                                                                                                            for i45 in pl.range(2):
                                                                                                                                                                                                for i46 in pl.range(2):
                                                                                                                                                                                                    for i47 in pl.range(2):
                                                                                                                                                                                                        for i48 in pl.range(2):
                                                                                                                                                                                                            for i49 in pl.range(2):
                                                                                                                                                                                                                for i50 in pl.range(2):
                                                                                                                                                                                                                    for i51 in pl.range(2):
                                                                                                                                                                                                                        for i52 in pl.range(2):
                                                                                                                                                                                                                            for i53 in pl.range(2):
                                                                                                                                                                                                                                for i54 in pl.range(2):
                                                                                                                                                                                                                                    for i55 in pl.range(2):
                                                                                                                                                                                                                                        for i56 in pl.range(2):
                                                                                                                                                                                                                                            for i57 in pl.range(2):
                                                                                                                                                                                                                                                for i58 in pl.range(2):
                                                                                                                                                                                                                                                    for i59 in pl.range(2):
                                                                                                                                                                                                                                                        for i60 in pl.range(2):
                                                                                                                                                                                                                                                            for i61 in pl.range(2):
                                                                                                                                                                                                                                                                for i62 in pl.range(2):
                                                                                                                                                                                                                                                                    for i63 in pl.range(2):
                                                                                                                                                                                                                                                                        for i64 in pl.range(2):
                                                                                                                                                                                                                                                                            for i65 in pl.range(2):
                                                                                                                                                                                                                                                                                for i66 in pl.range(2):
                                                                                                                                                                                                                                                                                    for i67 in pl.range(2):
                                                                                                                                                                                                                                                                                        for i68 in pl.range(2):
                                                                                                                                                                                                                                                                                            for i69 in pl.range(2):
                                                                                                                                                                                                                                                                                                for i70 in pl.range(2):
                                                                                                                                                                                                                                                                                                    for i71 in pl.range(2):
                                                                                                                                                                                                                                                                                                        for i72 in pl.range(2):
                                                                                                                                                                                                                                                                                                            for i73 in pl.range(2):
                                                                                                                                                                                                                                                                                                                for i74 in pl.range(2):
                                                                                                                                                                                                                                                                                                                    for i75 in pl.range(2):
                                                                                                                                                                                                                                                                                                                        for i76 in pl.range(2):
                                                                                                                                                                                                                                                                                                                            for i77 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                for i78 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                    for i79 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                        for i80 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                            for i81 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                                for i82 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                                    for i83 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                                        for i84 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                                            for i85 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                                                for i86 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                                                    for i87 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                                                        for i88 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                                                            for i89 in pl.range(2):
                                                                                                                                                                                                                                                                                                                                                                                y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        out = pl.store(t, [0, 0], out)
        return out
