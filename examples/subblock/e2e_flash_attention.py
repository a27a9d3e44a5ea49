# E2E (seed: the simple Flash Attention case): S = Q @ K^T on the cube, P = softmax(S / sqrt(d)) as a
# custom op on the vector sub-blocks, then O = P @ V on the cube. TileAndBindSubBlock splits the softmax
# kernel on dim 0 (its iterators are [parallel, reduction]): each sub-block scales and normalises 32 rows
# of scores. It checks the numbers of the score matrix through the custom-op softmax; it is not a fused
# flash-attention kernel (the seed's case is not one either).
# Kernel semantics (tilefold.custom.library): e2e.flash_softmax(s) = softmax(s, axis=1) in FP16.
import tilefold.language as pl


@pl.program
class E2EFlashAttention:
    @pl.function(type=pl.FunctionType.InCore)
    def scores(self, q: pl.Tensor[[64, 64], pl.FP16], k: pl.Tensor[[128, 64], pl.FP16],
               s: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        tq: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(q, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        tk: pl.Tile[[128, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(k, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        tkt: pl.Tile[[64, 128], pl.FP16, pl.Mem.Mat] = pl.tile.transpose_view(tk)
        acc: pl.Tile[[64, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(tq, tkt)
        s = pl.store(acc, [0, 0], s)
        return s

    @pl.function(type=pl.FunctionType.AIV)
    def softmax(self, s: pl.Tensor[[64, 128], pl.FP32],
                p: pl.Out[pl.Tensor[[64, 128], pl.FP16]]) -> pl.Tensor[[64, 128], pl.FP16]:
        t: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(s, [0, 0], [64, 128], target_memory=pl.Mem.Vec)
        scaled: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 0.125)  # 1 / sqrt(64)
        init: pl.Tile[[64, 128], pl.FP16, pl.Mem.Vec] = pl.tile.create([64, 128], dtype=pl.FP16,
                                                                       target_memory=pl.Mem.Vec)
        y = pl.tile.custom("e2e.flash_softmax", ins=[scaled], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.reduction], no_side_effect=True)
        p = pl.store(y, [0, 0], p)
        return p

    @pl.function(type=pl.FunctionType.InCore)
    def context(self, p: pl.Tensor[[64, 128], pl.FP16], v: pl.Tensor[[128, 64], pl.FP16],
                o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        tp: pl.Tile[[64, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(p, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        tv: pl.Tile[[128, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(v, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(tp, tv)
        o = pl.store(acc, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[64, 64], pl.FP16], k: pl.Tensor[[128, 64], pl.FP16],
             v: pl.Tensor[[128, 64], pl.FP16],
             o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        s = pl.create_tensor([64, 128], dtype=pl.FP32)
        p = pl.create_tensor([64, 128], dtype=pl.FP16)
        s = self.scores(q, k, s)
        p = self.softmax(s, p)
        o = self.context(p, v, o)
        return o
