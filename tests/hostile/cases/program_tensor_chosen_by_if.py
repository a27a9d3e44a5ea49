# exit: 2
# expect: this if chooses between the GM tensors
# expect: program_tensor_chosen_by_if.py:14
# argv: run {file} --set f=1
import tilefold.language as pl


@pl.program
class Pick:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32], f: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        # was a mismatch against golden (the device loaded x for every f): now refused where it is written
        if f > 0:
            src: pl.Tensor[[16, 64], pl.FP32] = pl.yield_(y)
        else:
            src = pl.yield_(x)
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(src, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        out = pl.store(t, [0, 0], out)
        return out
