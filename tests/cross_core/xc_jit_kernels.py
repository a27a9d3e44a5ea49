"""@pl.jit kernels of tests/cross_core/test_split_aiv_jit.py (a module: @pl.jit reads its source file)."""

import tilefold.language as pl


@pl.jit
def shard(q: pl.Tensor[[64, 64], pl.FP16], k: pl.Tensor[[64, 64], pl.FP16],
          out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mixed", optimizations=[pl.cross_core_slot(slot_num=4)]):
        mm = pl.matmul(q, k, out_dtype=pl.FP32)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.aiv_shard(mm)
            out = pl.assemble(out, pl.exp(h), [aiv_id * 32, 0])
    return out


@pl.jit
def gather_none(q: pl.Tensor[[64, 64], pl.FP16], k: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP32],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mixed"):
        mm = pl.matmul(q, k, out_dtype=pl.FP32)
        for _ in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            v = pl.exp(pl.aiv_shard(mm))
            kv = pl.aic_gather(v)
        out[:] = pl.matmul(kv, w, out_dtype=pl.FP32)
    return out


@pl.jit
def gather_up_down(q: pl.Tensor[[64, 64], pl.FP16], k: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP32],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mixed"):
        mm = pl.matmul(q, k, out_dtype=pl.FP32)
        for _ in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            v = pl.exp(pl.aiv_shard(mm))
            kv = pl.aic_gather(v)
        out[:] = pl.matmul(kv, w, out_dtype=pl.FP32)
    return out


@pl.jit
def gather_left_right(q: pl.Tensor[[64, 64], pl.FP16], k: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP32],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mixed"):
        mm = pl.matmul(q, k, out_dtype=pl.FP32)
        for _ in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
            v = pl.exp(pl.aiv_shard(mm))
            kv = pl.aic_gather(v)
        out[:] = pl.matmul(kv, w, out_dtype=pl.FP32)
    return out


@pl.jit
def phases(x: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="phases"):
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.slice(x, [32, 64], [aiv_id * 32, 0])
            s = pl.aic_gather(pl.mul(t, 2.0))
        mm = pl.matmul(s, w, out_dtype=pl.FP32)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
            h = pl.aiv_shard(mm)
            out = pl.assemble(out, pl.adds(h, 1.0), [0, aiv_id * 32])
    return out
