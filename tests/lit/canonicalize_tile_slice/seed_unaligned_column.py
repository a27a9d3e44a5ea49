# Seed example (#1789): FP32 column 1 is 4 B past the aligned base and is materialized; column 8 is
# exactly 32 B in and stays a zero-copy slice.
# RUN: tilefold opt %s --passes canonicalize-tile-slice --remarks | filecheck %s
import tilefold.language as pl


@pl.program
class Head:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        local: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 1], [0, 1])
        scaled: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head, 0.5)
        col8: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 1], [0, 8])
        both: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(scaled, col8)
        out = pl.store(both, [0, 0], out)
        return out

# CHECK-LABEL: def kernel
# CHECK: head_ext: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(local, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
# CHECK-NEXT: scaled: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head_ext, 0.5)
# CHECK-NEXT: col8: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 1], [0, 8])
# CHECK-NEXT: both: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(scaled, col8)
# CHECK: materialized: slice 'head' read by tile.muls is materialized (misaligned by 4 B)
# CHECK: kept-zero-copy: slice 'col8' read by tile.add stays zero-copy: proved aligned
