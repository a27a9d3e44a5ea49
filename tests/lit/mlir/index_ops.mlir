// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s
// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file --remarks -o %t 2>&1 | filecheck %s --check-prefix=REMARK

// varange (offset 5, stride 3) as i32, added to a loaded vector (tile.ci scaled and shifted): split 32 + 32, and
// each half's ramp starts where its half starts, at 5 + sb * 32 * 3.
// CHECK-LABEL: func.func @add_ramp
// CHECK: scf.for %[[SB:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[H:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[K:.*]] = arith.muli %[[SB]], %[[H]] : index
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[K]], %c3 : index
// CHECK-NEXT: %[[O:.*]] = arith.addi %c5, %[[S]] : index
// CHECK: hivm.hir.varange offset[%[[O]]] strides[%c3] outs(%{{.*}} : tensor<32xi32>) -> tensor<32xi32>
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<32xi32>) outs(%{{.*}}) {tiled_op}
// CHECK-NOT: limit_sub_block_id0
func.func @add_ramp(%x: memref<64xi32>, %dst: memref<64xi32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c5 = arith.constant 5 : index
  %c3 = arith.constant 3 : index
  %b = memref.alloc() : memref<64xi32>
  hivm.hir.load ins(%x : memref<64xi32>) outs(%b : memref<64xi32>)
  %t = bufferization.to_tensor %b restrict writable : memref<64xi32> to tensor<64xi32>
  %e = tensor.empty() : tensor<64xi32>
  %r = hivm.hir.varange offset[%c5] strides[%c3] outs(%e : tensor<64xi32>) -> tensor<64xi32>
  %y = hivm.hir.vadd ins(%t, %r : tensor<64xi32>, tensor<64xi32>) outs(%e : tensor<64xi32>) -> tensor<64xi32>
  hivm.hir.store ins(%y : tensor<64xi32>) outs(%dst : memref<64xi32>)
  return
}

// -----

// vgather along the last axis: out[i, j] = src[i, idx[i, j]] (tile.gather dim 1): split on rows, each sub-block
// gathering its rows from its rows of the source.
// CHECK-LABEL: func.func @pick_columns
// CHECK: hivm.hir.vgather ins(%{{.*}} : tensor<8x64xf32>) indices(%{{.*}} : tensor<8x8xi32>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<8x8xf32>) outs(%{{.*}}) {tiled_op}
func.func @pick_columns(%x: memref<16x64xf32>, %i: memref<16x8xi32>, %dst: memref<16x8xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %b = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%x : memref<16x64xf32>) outs(%b : memref<16x64xf32>)
  %bi = memref.alloc() : memref<16x8xi32>
  hivm.hir.load ins(%i : memref<16x8xi32>) outs(%bi : memref<16x8xi32>)
  %t = bufferization.to_tensor %b restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %ti = bufferization.to_tensor %bi restrict writable : memref<16x8xi32> to tensor<16x8xi32>
  %e = tensor.empty() : tensor<16x8xf32>
  %g = hivm.hir.vgather ins(%t : tensor<16x64xf32>) indices(%ti : tensor<16x8xi32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  hivm.hir.store ins(%g : tensor<16x8xf32>) outs(%dst : memref<16x8xf32>)
  return
}

// -----

// Strides that are not the tile's contiguous ones (HIVMDialect.md's example: offset 1, strides [1, 2] on 2x4):
// element [i, j] is 1 + i + 2 j (a column of row numbers plus a row of column numbers). Split on rows: each
// sub-block's row starts at 1 + sb * 1 * 1, the strides are kept.
// CHECK-LABEL: func.func @strided_ramp
// CHECK: scf.for %[[SB:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[H:[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %[[K:.*]] = arith.muli %[[SB]], %[[H]] : index
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[K]], %[[S0:.*]] : index
// CHECK-NEXT: %[[O:.*]] = arith.addi %[[S0]], %[[S]] : index
// CHECK: hivm.hir.varange offset[%[[O]]] strides[%[[S0]], %{{.*}}] outs(%{{.*}} : tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<1x4xf32>) outs(%{{.*}}) {tiled_op}
// CHECK-NOT: limit_sub_block_id0
func.func @strided_ramp(%dst: memref<2x4xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<2x4xf32>
  %r = hivm.hir.varange offset[%c1] strides[%c1, %c2] outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  hivm.hir.store ins(%r : tensor<2x4xf32>) outs(%dst : memref<2x4xf32>)
  return
}

// REMARK-DAG: remark: @add_ramp: split on axis 1
// REMARK-DAG: remark: @pick_columns: split on axis 0
// REMARK-DAG: remark: @strided_ramp: split on axis 0
