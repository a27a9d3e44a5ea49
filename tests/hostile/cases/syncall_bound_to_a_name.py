# exit: 2
# expect: gives no value
# expect: syncall_bound_to_a_name.py:13:
# argv: run {file}
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[48, 64], pl.FP32], out: pl.Out[pl.Tensor[[48, 64], pl.FP32]]) -> pl.Tensor[[48, 64], pl.FP32]:
        b = pl.tile.get_block_idx()
        x = pl.system.syncall(core_type="aiv_only")
        t = pl.adds(pl.load(a, [b, 0], [1, 64]), x)
        out = pl.store(t, [b, 0], out)
        return out
