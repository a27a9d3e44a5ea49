# A cross-core pipe's ring, reserved in the consumer's Vec (each lane's UB) by pl.reserve_buffer: AllocateMemoryAddr
# keeps its bytes free, the lanes' tiles start above it, the PTO text shows each set-up instruction, the push its
# ring, and the golden reference and the simulator agree.
# RUN: tilefold compile %s --emit pto | filecheck %s --check-prefix=PTO
# RUN: tilefold run %s --inputs random | filecheck %s --check-prefix=SIM
# RUN: sed -e 's/size=16384/size=8192/' %s > %t.py && not tilefold compile %t.py --emit pto 2>&1 | filecheck %s --check-prefix=SMALL
import tilefold.language as pl


@pl.program
class Ring:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
          out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        buf = pl.reserve_buffer(name="ring", size=16384, base=pl.AUTO)
        peer = pl.import_peer_buffer(name="ring", peer_func="k")
        pl.aic_initialize_pipe(pl.const(0, pl.INT32), peer, dir_mask=1, slot_size=8192, slot_num=2, id=0)
        pl.aiv_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=1, slot_size=8192, slot_num=2, id=0)
        a_t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        acc = pl.tile.matmul(a_t, b_t)
        pl.tpush_to_aiv(acc, split=1, id=0)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.tpop_from_aic(split=1, id=0)
            e = pl.exp(h)
            pl.tfree_to_aic(h, id=0)
            out = pl.store(e, [aiv_id * 32, 0], out)
        return out

# PTO: buffer %h: Vec[0x4000]
# PTO: reserve_buffer 'ring', Vec[0, 16384)
# PTO-NEXT: import_peer_buffer 'ring' of @k
# PTO-NEXT: aic_initialize_pipe pipe id0 c2v, 2 slots of 8192 B (2 local) in 'ring'
# PTO-NEXT: aiv_initialize_pipe pipe id0 c2v, 2 slots of 8192 B (2 local) in 'ring'
# PTO: tpush_to_aiv %acc, pipe id0, split 1
# SIM: result MATCH
# SMALL: 2 slots of 8192 bytes need 16384 bytes, but buffer 'ring' has 8192
