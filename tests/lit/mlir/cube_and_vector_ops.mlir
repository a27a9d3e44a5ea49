// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s
// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file --remarks -o %t 2>&1 | filecheck %s --check-prefix=REM
// The HIVM ops of tilefold.mlir.lower_ops: vconcat, vpad, vcumsum / vcumprod, vsort, atomic stores, load_scalar,
// and a mix kernel's AIC function (nd2nz, mmadL1, fixpipe), which the pass lowers and leaves as it is.

// Rows of two tiles joined (vconcat dim(0)): each input covers all columns of the result, so the split takes the
// columns and each half concatenates the two inputs' column halves.
// CHECK-LABEL: func.func @concat_rows
// CHECK: scf.for %sb = %c0 to %c2 step %c1 {
// CHECK: %[[E:.*]] = tensor.empty() : tensor<32x32xf32>
// CHECK: hivm.hir.vconcat dim(0) ins(%ta, %tb : tensor<16x32xf32>, tensor<16x32xf32>) outs(%[[E]] : tensor<32x32xf32>) -> tensor<32x32xf32>
// CHECK: hivm.hir.store ins(%cat : tensor<32x32xf32>) outs(%{{.*}} : memref<32x32xf32, strided<[64, 1], offset: ?>>) {tiled_op}
// CHECK: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
// REM-DAG: remark: @concat_rows: split on axis 1
func.func @concat_rows(%a: memref<16x64xf32>, %b: memref<16x64xf32>, %out: memref<32x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %ua = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%a : memref<16x64xf32>) outs(%ua : memref<16x64xf32>)
  %ub = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%b : memref<16x64xf32>) outs(%ub : memref<16x64xf32>)
  %ta = bufferization.to_tensor %ua restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %tb = bufferization.to_tensor %ub restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %cat = hivm.hir.vconcat dim(0) ins(%ta, %tb : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  hivm.hir.store ins(%cat : tensor<32x64xf32>) outs(%out : memref<32x64xf32>)
  return
}
// -----

// Columns joined (vconcat dim(1), memref form): the rows split, each half joins its rows of both inputs.
// CHECK-LABEL: func.func @concat_cols
// CHECK: %o = memref.alloc() : memref<8x64xf32>
// CHECK-NEXT: hivm.hir.vconcat dim(1) ins(%ua, %ub : memref<8x32xf32>, memref<8x32xf32>) outs(%o : memref<8x64xf32>)
// CHECK: hivm.hir.store ins(%o : memref<8x64xf32>) outs(%{{.*}} : memref<8x64xf32, strided<[64, 1], offset: ?>>) {tiled_op}
// REM-DAG: remark: @concat_cols: split on axis 0
func.func @concat_cols(%a: memref<16x32xf32>, %b: memref<16x32xf32>, %out: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %ua = memref.alloc() : memref<16x32xf32>
  hivm.hir.load ins(%a : memref<16x32xf32>) outs(%ua : memref<16x32xf32>)
  %ub = memref.alloc() : memref<16x32xf32>
  hivm.hir.load ins(%b : memref<16x32xf32>) outs(%ub : memref<16x32xf32>)
  %o = memref.alloc() : memref<16x64xf32>
  hivm.hir.vconcat dim(1) ins(%ua, %ub : memref<16x32xf32>, memref<16x32xf32>) outs(%o : memref<16x64xf32>)
  hivm.hir.store ins(%o : memref<16x64xf32>) outs(%out : memref<16x64xf32>)
  return
}
// -----

// vpad by rows (low[4, 0] high[4, 0], a run-time pad value): the padded axis stays whole, the columns split.
// CHECK-LABEL: func.func @pad_rows
// CHECK: %p = hivm.hir.vpad ins(%ta : tensor<8x32xf16>) outs(%{{.*}} : tensor<16x32xf16>) low[4, 0] high[4, 0] pad_value %v : f16 -> tensor<16x32xf16>
// CHECK: {tiled_op}
// REM-DAG: remark: @pad_rows: split on axis 1
func.func @pad_rows(%a: memref<8x64xf16>, %out: memref<16x64xf16>, %v: f16) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %ua = memref.alloc() : memref<8x64xf16>
  hivm.hir.load ins(%a : memref<8x64xf16>) outs(%ua : memref<8x64xf16>)
  %ta = bufferization.to_tensor %ua restrict writable : memref<8x64xf16> to tensor<8x64xf16>
  %e = tensor.empty() : tensor<16x64xf16>
  %p = hivm.hir.vpad ins(%ta : tensor<8x64xf16>) outs(%e : tensor<16x64xf16>) low[4, 0] high[4, 0] pad_value %v : f16 -> tensor<16x64xf16>
  hivm.hir.store ins(%p : tensor<16x64xf16>) outs(%out : memref<16x64xf16>)
  return
}
// -----

// A prefix sum along each row then a descending sort of each row: rows are independent, so the rows split.
// CHECK-LABEL: func.func @row_scan
// CHECK: %c = hivm.hir.vcumsum ins(%ta : tensor<8x64xf32>) outs(%{{.*}} : tensor<8x64xf32>) cum_dims = [1] reverse = false -> tensor<8x64xf32>
// CHECK-NEXT: %s = hivm.hir.vsort ins(%c : tensor<8x64xf32>) outs(%{{.*}} : tensor<8x64xf32>) descending = true sort_axis = 1 -> tensor<8x64xf32>
// CHECK: {tiled_op}
// REM-DAG: remark: @row_scan: split on axis 0
func.func @row_scan(%a: memref<16x64xf32>, %out: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %ua = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%a : memref<16x64xf32>) outs(%ua : memref<16x64xf32>)
  %ta = bufferization.to_tensor %ua restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %c = hivm.hir.vcumsum ins(%ta : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) cum_dims = [1] reverse = false -> tensor<16x64xf32>
  %s = hivm.hir.vsort ins(%c : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) descending = true sort_axis = 1 -> tensor<16x64xf32>
  hivm.hir.store ins(%s : tensor<16x64xf32>) outs(%out : memref<16x64xf32>)
  return
}
// -----

// A reverse prefix product down each column (cum_dims = [0]): the columns split, never the rows it runs along.
// CHECK-LABEL: func.func @column_scan
// CHECK: hivm.hir.vcumprod ins(%ua : memref<16x32xf32>) outs(%o : memref<16x32xf32>) cum_dims = [0] reverse = true
// CHECK: {tiled_op}
// REM-DAG: remark: @column_scan: split on axis 1
func.func @column_scan(%a: memref<16x64xf32>, %out: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %ua = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%a : memref<16x64xf32>) outs(%ua : memref<16x64xf32>)
  %o = memref.alloc() : memref<16x64xf32>
  hivm.hir.vcumprod ins(%ua : memref<16x64xf32>) outs(%o : memref<16x64xf32>) cum_dims = [0] reverse = true
  hivm.hir.store ins(%o : memref<16x64xf32>) outs(%out : memref<16x64xf32>)
  return
}
// -----

// An atomic add store of a tile scaled by a scalar read from GM (load_scalar of a one-element memref): each half
// adds its rows into GM; the store keeps its atomic = <add>.
// CHECK-LABEL: func.func @atomic_accumulate
// CHECK: %k = hivm.hir.load_scalar %s : memref<1xf32> -> f32
// CHECK: hivm.hir.store ins(%o : memref<8x64xf32>) outs(%{{.*}} : memref<8x64xf32, strided<[64, 1], offset: ?>>) atomic = <add> {tiled_op}
// REM-DAG: remark: @atomic_accumulate: split on axis 0
func.func @atomic_accumulate(%a: memref<16x64xf32>, %acc: memref<16x64xf32>, %s: memref<1xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %ua = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%a : memref<16x64xf32>) outs(%ua : memref<16x64xf32>)
  %k = hivm.hir.load_scalar %s : memref<1xf32> -> f32
  %o = memref.alloc() : memref<16x64xf32>
  hivm.hir.vmul ins(%ua, %k : memref<16x64xf32>, f32) outs(%o : memref<16x64xf32>)
  hivm.hir.store ins(%o : memref<16x64xf32>) outs(%acc : memref<16x64xf32>) atomic = <add>
  return
}
// -----

// An atomic max store: tilefold's atomic store adds only, so the function is rolled back (the store limited to
// sub-block 0) with the store's location.
// CHECK-LABEL: func.func @atomic_max
// CHECK-NOT: map_for_to_forall
// CHECK: scf.if
// CHECK-NEXT: hivm.hir.store ins(%ua : memref<16x64xf32>) outs(%acc : memref<16x64xf32>) atomic = <max>
// CHECK-NEXT: } {limit_sub_block_id0}
// REM-DAG: remark: @atomic_max: not lowered, rolled back: {{.*}}cube_and_vector_ops.mlir:[[# @LINE + 5]]:3
// REM-DAG: error: hivm.hir.store: an atomic max store is not lowered: tilefold's atomic store adds only
func.func @atomic_max(%a: memref<16x64xf32>, %acc: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %ua = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%a : memref<16x64xf32>) outs(%ua : memref<16x64xf32>)
  hivm.hir.store ins(%ua : memref<16x64xf32>) outs(%acc : memref<16x64xf32>) atomic = <max>
  return
}
// -----

// A mix kernel: the AIC function (nd2nz into L1, mmadL1 into L0C, fixpipe to a GM workspace) is lowered to a tilefold
// AIC function and printed as read; the AIV function reading the workspace is split.
// CHECK-LABEL: func.func @mix_aic
// CHECK-NOT: map_for_to_forall
// CHECK-NOT: limit_sub_block_id0
// CHECK: hivm.hir.mmadL1 ins(%a, %b, %true, %c32, %c64, %c32 : memref<32x64xf16, #hivm.address_space<cbuf>>, memref<64x32xf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%c : memref<32x32xf32, #hivm.address_space<cc>>)
// CHECK-NEXT: hivm.hir.fixpipe {enable_nz2nd} ins(%c : memref<32x32xf32, #hivm.address_space<cc>>) outs(%ws : memref<32x32xf32, #hivm.address_space<gm>>)
// CHECK-LABEL: func.func @mix_aiv
// CHECK: scf.for %sb = %c0 to %c2 step %c1 {
// CHECK: hivm.hir.vrelu ins(%u : memref<16x32xf32, #hivm.address_space<ub>>) outs(%r : memref<16x32xf32, #hivm.address_space<ub>>)
// CHECK: {tiled_op}
// REM-DAG: remark: @mix_aic: AIC function lowered to a tilefold AIC function, left as it is
// REM-DAG: remark: @mix_aiv: split on axis 0
module attributes {hacc.target = #hacc.target<"Ascend910B1">} {
  func.func @mix_aic(%x: memref<32x64xf16, #hivm.address_space<gm>>, %w: memref<64x32xf16, #hivm.address_space<gm>>, %ws: memref<32x32xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIC>, hivm.part_of_mix} {
    %true = arith.constant true
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %a = memref.alloc() : memref<32x64xf16, #hivm.address_space<cbuf>>
    hivm.hir.nd2nz ins(%x : memref<32x64xf16, #hivm.address_space<gm>>) outs(%a : memref<32x64xf16, #hivm.address_space<cbuf>>) init_out_buffer = false
    %b = memref.alloc() : memref<64x32xf16, #hivm.address_space<cbuf>>
    hivm.hir.nd2nz ins(%w : memref<64x32xf16, #hivm.address_space<gm>>) outs(%b : memref<64x32xf16, #hivm.address_space<cbuf>>) init_out_buffer = false
    %c = memref.alloc() : memref<32x32xf32, #hivm.address_space<cc>>
    hivm.hir.mmadL1 ins(%a, %b, %true, %c32, %c64, %c32 : memref<32x64xf16, #hivm.address_space<cbuf>>, memref<64x32xf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%c : memref<32x32xf32, #hivm.address_space<cc>>)
    hivm.hir.fixpipe {enable_nz2nd} ins(%c : memref<32x32xf32, #hivm.address_space<cc>>) outs(%ws : memref<32x32xf32, #hivm.address_space<gm>>)
    hivm.hir.sync_block_set[<CUBE>, <PIPE_FIX>, <PIPE_MTE2>] flag = 1
    return
  }
  func.func @mix_aiv(%ws: memref<32x32xf32, #hivm.address_space<gm>>, %out: memref<32x32xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>, hivm.part_of_mix} {
    hivm.hir.sync_block_wait[<VECTOR>, <PIPE_FIX>, <PIPE_MTE2>] flag = 1
    %u = memref.alloc() : memref<32x32xf32, #hivm.address_space<ub>>
    hivm.hir.load ins(%ws : memref<32x32xf32, #hivm.address_space<gm>>) outs(%u : memref<32x32xf32, #hivm.address_space<ub>>)
    %r = memref.alloc() : memref<32x32xf32, #hivm.address_space<ub>>
    hivm.hir.vrelu ins(%u : memref<32x32xf32, #hivm.address_space<ub>>) outs(%r : memref<32x32xf32, #hivm.address_space<ub>>)
    hivm.hir.store ins(%r : memref<32x32xf32, #hivm.address_space<ub>>) outs(%out : memref<32x32xf32, #hivm.address_space<gm>>)
    return
  }
}
