# exit: 2
# expect: does not fit in Vec
# expect: tile_create_4tib.py:13:9
# argv: run {file}
# pl.tile.create of a 4 TiB tile: the golden reference allocated it with numpy before the memory check (MemoryError).
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        big = pl.tile.create([1000000, 1000000], dtype=pl.FP32)
        t = pl.load(a, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out
