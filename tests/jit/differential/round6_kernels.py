"""A fourth differential corpus of @pl.jit kernels, the hostile6 round: combinations of what the last session
added with control flow, valid shapes, dtypes and cross-core work: kernel-written pipe syncs (pl.system.sync_src /
sync_dst / bar_v / bar_m / bar_all) inside loops, ifs and pl.split_aiv regions; hierarchy scopes (pl.at(level=HOST /
GLOBAL, role=Orchestrator)) around on-chip scopes and loops; INT4 / UINT4 tiles; in-kernel barriers
(pl.system.syncall, hard and soft) between phases of a multi-block launch; matmuls feeding vector work. The numpy
references are written by hand in test_jit_differential_round6.py. A real module: @pl.jit reads sources."""

import tilefold.language as pl

AIV = 48  # Ascend910B's AIV cores: pl.system.available_aiv_count()
MTE2, V, MTE3 = pl.PipeType.MTE2, pl.PipeType.V, pl.PipeType.MTE3

# ------------------------------------------------------------------------------------------------ pipe syncs


@pl.jit
def sync_pair_in_carried_loop(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for i in pl.range(4):
            t = x[i * 16:i * 16 + 16, :]
            pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=2)
            pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=2)
            acc = pl.add(pl.muls(acc, 0.5), pl.exp(t))
            pl.system.bar_v()
        out[:] = acc
    return out


@pl.jit
def sync_pairs_in_both_branches(x: pl.Tensor[[96, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 32], dtype=pl.FP32, value=1.0)
        for i in pl.range(6):
            t = x[i * 16:i * 16 + 16, :]
            if i % 2 == 0:
                pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)
                pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=0)
                acc = pl.add(acc, t)
            else:
                pl.system.sync_src(set_pipe=V, wait_pipe=MTE3, event_id=5)
                pl.system.sync_dst(set_pipe=V, wait_pipe=MTE3, event_id=5)
                acc = pl.maximum(acc, pl.muls(t, 2.0))
        out[:] = acc
    return out


@pl.jit
def all_eight_events_fp16(a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
                          out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [32, 64])
        tb = pl.load(b, [0, 0], [32, 64])
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=1)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=2)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=3)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=4)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=5)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=6)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=7)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=7)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=6)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=5)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=4)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=3)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=2)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=1)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=0)
        s = pl.add(pl.cast(ta, target_type=pl.FP32), pl.cast(tb, target_type=pl.FP32))
        pl.system.bar_all()
        out = pl.store(pl.mul(s, s), [0, 0], out)
    return out


@pl.jit
def syncs_with_prime_rows(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        m = pl.row_max(a)
        pl.system.bar_v()
        e = pl.exp(pl.row_expand_sub(a, m))
        pl.system.bar_all()
        out[:] = pl.row_expand_div(e, pl.row_sum(e))
    return out


@pl.jit
def region_syncs_k_blocked(q: pl.Tensor[[64, 128], pl.FP16], k: pl.Tensor[[64, 128], pl.FP16],
                           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mm = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
        pl.system.bar_m()
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.aiv_shard(mm)
            pl.system.sync_src(set_pipe=V, wait_pipe=MTE3, event_id=1)
            pl.system.sync_dst(set_pipe=V, wait_pipe=MTE3, event_id=1)
            r = pl.row_expand_sub(h, pl.row_max(h))
            pl.system.bar_v()
            out = pl.assemble(out, pl.exp(pl.muls(r, 0.125)), [aiv_id * 32, 0])
    return out


# ------------------------------------------------------------------------------------------------ hierarchy scopes
# (program form: pl.at(level=HOST / GLOBAL / CHIP, role=...) scopes are a @pl.program construct)

@pl.program
class HostScopeThenChip:
    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64],
             pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
            with pl.at(level=pl.Level.CORE_GROUP):
                s = pl.add(x, y)
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.sub(pl.mul(s, x), y)
        return out


@pl.program
class GlobalHostChain:
    @pl.function
    def main(self, x: pl.Tensor[[16, 128], pl.FP32], y: pl.Tensor[[16, 128], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator):
            with pl.at(level=pl.Level.CORE_GROUP):
                e = pl.exp(x)
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                with pl.at(level=pl.Level.CORE_GROUP):
                    m = pl.row_expand_div(e, pl.row_sum(e))
            with pl.at(level=pl.Level.CORE_GROUP):
                out[:] = pl.add(m, y)
        return out


@pl.program
class LoopOfHostScopes:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64],
             pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.mul(y, 0.0)
        for _i in pl.range(3):
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.add(pl.mul(out, 2.0), x)
        return out


@pl.program
class ChipWorkerThenHost:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64],
             pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CHIP, role=pl.Role.Worker):
            with pl.at(level=pl.Level.CORE_GROUP):
                a = pl.maximum(x, y)
        with pl.at(level=pl.Level.POD, role=pl.Role.Orchestrator):
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.exp(pl.sub(a, x))
            with pl.at(level=pl.Level.CORE_GROUP):
                out[:] = pl.row_expand_mul(b, pl.row_min(y))
        return out


@pl.program
class GraphFragmentInLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def decay(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]],
              row: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [row, 0], [16, 64], target_memory=pl.Mem.Vec)
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(out, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=3)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=3)
        s = pl.tile.sub(pl.tile.muls(a, 0.75), t)
        pl.system.bar_v()
        out = pl.tile.store(s, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Graph)
    def layer(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]],
              base: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.decay(x, out, base)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64],
             pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                out = self.layer(x, out, (3 - i) * 16)
        return out


@pl.program
class StagedHostTensor:
    @pl.function
    def main(self, x: pl.Tensor[[48, 64], pl.FP32], y: pl.Tensor[[48, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[48, 64], pl.FP32]]) -> pl.Tensor[[48, 64], pl.FP32]:
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
            t = pl.create_tensor([48, 64], dtype=pl.FP32)
            with pl.at(level=pl.Level.CORE_GROUP):
                t[:] = pl.exp(pl.mul(x, 0.5))
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.row_expand_mul(t, pl.row_min(y))
        return out


# ------------------------------------------------------------------------------------------------ 4-bit integers


@pl.jit
def int4_loop_wrap(a: pl.Tensor[[16, 64], pl.INT4], out: pl.Out[pl.Tensor[[16, 64], pl.INT4]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.sub(a, a)
        for _i in pl.range(3):
            acc = pl.add(acc, a)
        out[:] = acc
    return out


@pl.jit
def int4_to_fp32_softmax(a: pl.Tensor[[16, 64], pl.INT4], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        f = pl.muls(pl.cast(a, target_type=pl.FP32), 0.25)
        e = pl.exp(pl.row_expand_sub(f, pl.row_max(f)))
        out[:] = pl.row_expand_div(e, pl.row_sum(e))
    return out


@pl.jit
def fp32_to_uint4_and_back(a: pl.Tensor[[32, 64], pl.FP32], q: pl.Out[pl.Tensor[[32, 64], pl.UINT4]],
                           back: pl.Out[pl.Tensor[[32, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        u = pl.cast(pl.adds(pl.muls(a, 4.0), 8.0), target_type=pl.UINT4, mode="floor")
        q[:] = u
        back[:] = pl.cast(u, target_type=pl.FP16)
    return q, back


@pl.jit
def int4_minmax_blocks(a: pl.Tensor, b: pl.Tensor, o1: pl.Out[pl.Tensor], o2: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.maximum(a, b)
        o2[:] = pl.sub(pl.minimum(a, b), a)
    return o1, o2


@pl.jit
def int4_matmul_int32(a: pl.Tensor[[32, 64], pl.INT4], b: pl.Tensor[[64, 32], pl.INT4],
                      out: pl.Out[pl.Tensor[[32, 32], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.matmul(a, b, out_dtype=pl.INT32)
    return out


# ------------------------------------------------------------------------------------------------ barriers


@pl.jit
def hard_barrier_reverse_rows(a: pl.Tensor[[AIV, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[AIV, 64], pl.FP32]],
                              out: pl.Out[pl.Tensor[[AIV, 64], pl.FP32]]):
    with pl.spmd(pl.system.available_aiv_count()):
        i = pl.tile.get_block_idx()
        t = pl.load(a, [i, 0], [1, 64])
        mid = pl.store(pl.adds(pl.muls(t, 3.0), 1.0), [i, 0], mid)
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(core_type="aiv_only")
        pl.system.cacheinvalid()
        other = pl.load(mid, [(i + 5) % AIV, 0], [1, 64])
        out = pl.store(pl.sub(other, t), [i, 0], out)
    return out


@pl.jit
def soft_barrier_partial_launch(a: pl.Tensor[[16, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[16, 64], pl.FP32]],
                                ws: pl.InOut[pl.Tensor[[16], pl.INT32]], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.spmd(16):
        i = pl.tile.get_block_idx()
        t = pl.load(a, [i, 0], [1, 64])
        mid = pl.store(pl.exp(t), [i, 0], mid)
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(mode="soft", core_type="aiv_only", gm_workspace=ws, used_cores=16)
        pl.system.cacheinvalid()
        nb = pl.load(mid, [15 - i, 0], [1, 64])
        out = pl.store(pl.add(nb, t), [i, 0], out)
    return out


@pl.jit
def two_barrier_rounds(a: pl.Tensor[[AIV, 32], pl.FP32], m1: pl.InOut[pl.Tensor[[AIV, 32], pl.FP32]],
                       m2: pl.InOut[pl.Tensor[[AIV, 32], pl.FP32]], out: pl.Out[pl.Tensor[[AIV, 32], pl.FP32]]):
    with pl.spmd(pl.system.available_aiv_count()):
        i = pl.tile.get_block_idx()
        t = pl.load(a, [i, 0], [1, 32])
        m1 = pl.store(pl.muls(t, 2.0), [i, 0], m1)
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(core_type="aiv_only")
        pl.system.cacheinvalid()
        u = pl.load(m1, [(i + 1) % AIV, 0], [1, 32])
        m2 = pl.store(pl.add(u, t), [i, 0], m2)
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(core_type="aiv_only")
        pl.system.cacheinvalid()
        w = pl.load(m2, [(i + 2) % AIV, 0], [1, 32])
        out = pl.store(pl.maximum(w, u), [i, 0], out)
    return out


@pl.jit
def barrier_after_carried_loop(a: pl.Tensor[[AIV, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[AIV, 64], pl.FP32]],
                               out: pl.Out[pl.Tensor[[AIV, 64], pl.FP32]]):
    with pl.spmd(pl.system.available_aiv_count()):
        i = pl.tile.get_block_idx()
        t = pl.load(a, [i, 0], [1, 64])
        acc = pl.muls(t, 0.0)
        for _j in pl.range(3):
            acc = pl.add(pl.muls(acc, 0.5), t)
        mid = pl.store(acc, [i, 0], mid)
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(core_type="aiv_only")
        pl.system.cacheinvalid()
        x = pl.load(mid, [AIV - 1 - i, 0], [1, 64])
        out = pl.store(pl.mul(x, acc), [i, 0], out)
    return out


# ------------------------------------------------------------------------------------------------ cross-core + dtypes


@pl.jit
def matmul_softmax_fp16_in(a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c = pl.muls(pl.matmul(a, b, out_dtype=pl.FP32), 0.5)
        e = pl.exp(pl.row_expand_sub(c, pl.row_max(c)))
        out[:] = pl.row_expand_div(e, pl.row_sum(e))
    return out


@pl.jit
def k_blocked_matmul_in_loop(a: pl.Tensor[[32, 256], pl.FP16], b: pl.Tensor[[256, 32], pl.FP16],
                             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(a[:, 0:64], b[0:64, :], out_dtype=pl.FP32)
        for kk in pl.range(1, 4):
            acc = pl.matmul_acc(acc, a[:, kk * 64:kk * 64 + 64], b[kk * 64:kk * 64 + 64, :])
        out[:] = pl.maximum(acc, pl.muls(acc, -1.0))
    return out


@pl.jit
def split_region_row_norm(q: pl.Tensor[[64, 32], pl.FP16], k: pl.Tensor[[64, 32], pl.FP16],
                          out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mm = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.aiv_shard(mm)
            s = pl.row_sum(pl.mul(h, h))
            out = pl.assemble(out, pl.row_expand_div(h, pl.adds(s, 1.0)), [aiv_id * 32, 0])
    return out


@pl.jit
def bf16_prime_rows_rms(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        f = pl.cast(a, target_type=pl.FP32)
        ms = pl.row_sum(pl.mul(f, f))
        out[:] = pl.cast(pl.row_expand_div(f, pl.adds(ms, 1.0)), target_type=pl.BF16)
    return out


@pl.jit
def int16_loop_if_wrap(a: pl.Tensor[[64, 64], pl.INT16], out: pl.Out[pl.Tensor[[16, 64], pl.INT16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = a[0:16, :]
        for i in pl.range(1, 4):
            t = a[i * 16:i * 16 + 16, :]
            if i == 2:
                acc = pl.mul(acc, t)
            else:
                acc = pl.add(acc, pl.muls(t, 1000))
        out[:] = acc
    return out


@pl.jit
def uint8_saturating_chain(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.UINT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(pl.adds(pl.muls(a, 100.0), 128.0), target_type=pl.UINT8, mode="rint")
    return out


@pl.jit
def prime_cols_col_reductions(a: pl.Tensor, o1: pl.Out[pl.Tensor], o2: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.col_max(a)
        o2[:] = pl.col_sum(pl.abs(a))
    return o1, o2


@pl.jit
def spmd_disjoint_rows_loop(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.spmd(4):
        i = pl.tile.get_block_idx()
        t = pl.load(x, [i * 16, 0], [16, 64])
        acc = pl.muls(t, 1.0)
        for _j in pl.range(3):
            acc = pl.maximum(pl.muls(acc, 0.5), t)
        out = pl.store(acc, [i * 16, 0], out)
    return out


@pl.jit
def stepped_loop_with_syncs(x: pl.Tensor[[96, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 64], dtype=pl.FP32, value=2.0)
        for i in pl.range(0, 6, 2):  # blocks 0, 2, 4
            t = x[i * 16:i * 16 + 16, :]
            pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=4)
            pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=4)
            acc = pl.sub(pl.mul(acc, t), t)
        out[:] = acc
    return out


@pl.jit
def fp16_prime_rows_bar_v(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        e = pl.exp(a)
        pl.system.bar_v()
        out[:] = pl.muls(e, 0.5)
    return out
