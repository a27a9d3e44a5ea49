"""Every Before/After example of the seed, as Before/Expected programs compared structurally."""

from __future__ import annotations

from cts_helpers import calls, check, parse, run


def test_zero_offset_full_shape_slice_folds_into_extract():
    before = parse("""
        import tilefold.language as pl

        @pl.program
        class Batch1:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[32, 512], pl.INT8]):
                x_mat: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                    x, [0, 0], [32, 512], target_memory=pl.Mem.Mat)
                for ko in pl.range(0, 512, 256):
                    lhs_slice: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [0, 0])
                    a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(
                        lhs_slice, 0, ko, shape=[32, 256], target_memory=pl.Mem.Left)
    """)
    expected = parse("""
        import tilefold.language as pl

        @pl.program
        class Batch1:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[32, 512], pl.INT8]):
                x_mat: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                    x, [0, 0], [32, 512], target_memory=pl.Mem.Mat)
                for ko in pl.range(0, 512, 256):
                    a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(
                        x_mat, 0, ko, shape=[32, 256], target_memory=pl.Mem.Left)
    """)
    check(before, expected)


def test_nonzero_page_offset_folds_into_extract_indices():
    before = parse("""
        import tilefold.language as pl

        @pl.program
        class Batch2:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[64, 512], pl.INT8]):
                x_mat: pl.Tile[[64, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                    x, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
                for ko in pl.range(0, 512, 256):
                    page: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [32, 0])
                    a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(
                        page, 0, ko, shape=[32, 256], target_memory=pl.Mem.Left)
    """)
    expected = parse("""
        import tilefold.language as pl

        @pl.program
        class Batch2:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[64, 512], pl.INT8]):
                x_mat: pl.Tile[[64, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                    x, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
                for ko in pl.range(0, 512, 256):
                    a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(
                        x_mat, 32, ko, shape=[32, 256], target_memory=pl.Mem.Left)
    """)
    check(before, expected)


def test_l0_sized_matmul_operands_become_left_right_extracts():
    before = parse("""
        import tilefold.language as pl

        @pl.program
        class Mm:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, a: pl.Tensor[[16, 256], pl.BF16], b: pl.Tensor[[256, 64], pl.BF16],
                       out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
                lhs_mat: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(
                    a, [0, 0], [16, 256], target_memory=pl.Mem.Mat)
                rhs_mat: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(
                    b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
                lhs_slice: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.slice(lhs_mat, [16, 256], [0, 0])
                rhs_slice: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(rhs_mat, [256, 64], [0, 0])
                c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_slice, rhs_slice)
                out = pl.store(c, [0, 0], out)
                return out
    """)
    expected = parse("""
        import tilefold.language as pl

        @pl.program
        class Mm:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, a: pl.Tensor[[16, 256], pl.BF16], b: pl.Tensor[[256, 64], pl.BF16],
                       out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
                lhs_mat: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(
                    a, [0, 0], [16, 256], target_memory=pl.Mem.Mat)
                rhs_mat: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(
                    b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
                lhs_left: pl.Tile[[16, 256], pl.BF16, pl.Mem.Left] = pl.tile.extract(
                    lhs_mat, 0, 0, shape=[16, 256], target_memory=pl.Mem.Left)
                rhs_right: pl.Tile[[256, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(
                    rhs_mat, 0, 0, shape=[256, 64], target_memory=pl.Mem.Right)
                c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_left, rhs_right)
                out = pl.store(c, [0, 0], out)
                return out
    """)
    after = check(before, expected)
    names = [s.var.name for s in after.functions[0].body.stmts[2:4]]
    assert names == ["lhs_left", "rhs_right"]


def test_dynamic_row_slice_into_col_expand_mul_is_materialized_1640():
    before = parse("""
        import tilefold.language as pl

        @pl.program
        class Rms:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[8, 256], pl.FP32], g: pl.Tensor[[1, 256], pl.FP32],
                       out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
                local: pl.Tile[[8, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 256])
                gamma_t: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 256])
                row_off: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
                row: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [1, 256], [row_off, 0])
                scaled: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row, gamma_t)
                out = pl.store(scaled, [0, 0], out)
                return out
    """)
    expected = parse("""
        import tilefold.language as pl

        @pl.program
        class Rms:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[8, 256], pl.FP32], g: pl.Tensor[[1, 256], pl.FP32],
                       out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
                local: pl.Tile[[8, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 256])
                gamma_t: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 256])
                row_off: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
                row_ext: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.extract(
                    local, row_off, 0, shape=[1, 256], target_memory=pl.Mem.Vec)
                scaled: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row_ext, gamma_t)
                out = pl.store(scaled, [0, 0], out)
                return out
    """)
    after = check(before, expected)
    assert after.functions[0].body.stmts[3].var.name == "row_ext"


def test_column_slice_of_multirow_tile_into_col_expand_mul_is_materialized_2010():
    before = parse("""
        import tilefold.language as pl

        @pl.program
        class Cols:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32],
                       out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
                t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])
                gamma_t: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64])
                hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
                scaled: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi, gamma_t)
                out = pl.store(scaled, [0, 0], out)
                return out
    """)
    expected = parse("""
        import tilefold.language as pl

        @pl.program
        class Cols:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32],
                       out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
                t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])
                gamma_t: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64])
                hi_ext: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(
                    t, 0, 64, shape=[16, 64], target_memory=pl.Mem.Vec)
                scaled: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi_ext, gamma_t)
                out = pl.store(scaled, [0, 0], out)
                return out
    """)
    after = check(before, expected)
    assert after.functions[0].body.stmts[2].var.name == "hi_ext"


def test_unaligned_fp32_column_1_feeding_muls_is_materialized_1789():
    before = parse("""
        import tilefold.language as pl

        @pl.program
        class Head:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
                       out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
                local: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
                head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 1], [0, 1])
                scaled: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head, 0.5)
                out = pl.store(scaled, [0, 0], out)
                return out
    """)
    expected = parse("""
        import tilefold.language as pl

        @pl.program
        class Head:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
                       out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
                local: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
                head_ext: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(
                    local, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
                scaled: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head_ext, 0.5)
                out = pl.store(scaled, [0, 0], out)
                return out
    """)
    after = check(before, expected)
    assert after.functions[0].body.stmts[1].var.name == "head_ext"


def test_fp32_column_8_is_exactly_32_bytes_and_stays_zero_copy():
    before = parse("""
        import tilefold.language as pl

        @pl.program
        class Col8:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
                       out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
                local: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
                col8: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 1], [0, 8])
                scaled: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(col8, 0.5)
                out = pl.store(scaled, [0, 0], out)
                return out
    """)
    after = run(before)
    assert after is before
    assert len(calls(after, "tile.slice")) == 1 and not calls(after, "tile.extract")


def test_dynamic_row_with_32_byte_row_pitch_stays_zero_copy():
    before = parse("""
        import tilefold.language as pl

        @pl.program
        class DynRow:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
                       out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
                local: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
                r: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
                row: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [1, 64], [r, 0])
                scaled: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(row, 0.5)
                out = pl.store(scaled, [0, 0], out)
                return out
    """)
    assert run(before) is before
