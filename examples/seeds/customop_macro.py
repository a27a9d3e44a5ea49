"""Seed 2: a custom_macro with sync event slots and sync-related args (never split: falls back to sub-block 0)."""
import tilefold.language as pl


@pl.program
class CustomOpMacro:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], flag: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        x_t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[16, 64], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        tmp: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[16, 64], dtype=pl.FP32,
                                                                     target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.custom_macro(
            "macro_kernel", ins=[x_t], outs=[init], tmps=[tmp],
            iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, pipe="PIPE_V",
            sync_event_slots=[0], sync_related_args=[flag])
        out = pl.store(y, [0, 0], out)
        return out
