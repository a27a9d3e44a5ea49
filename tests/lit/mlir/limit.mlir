// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s
// RUN: tilefold mlir-opt %s --hivm-bind-sub-block='enable-tile=false' -split-input-file | filecheck %s --check-prefix=NOTILE

// 7 rows cannot be halved and 7 x 4 B = 28 B is no whole number of 32 B blocks per half row: rolled back, the
// store runs on sub-block 0 only.
// CHECK-LABEL: func.func @odd_rows
// CHECK-NOT: map_for_to_forall
// CHECK: %[[IDX:.*]] = hivm.hir.get_sub_block_idx -> i64
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[C:.*]] = arith.cmpi eq, %[[IDX]], %[[ZERO]] : i64
// CHECK: scf.if %[[C]] {
// CHECK-NEXT: hivm.hir.store ins(%{{.*}} : tensor<7x7xf32>)
// CHECK: } {limit_sub_block_id0}
// NOTILE-LABEL: func.func @odd_rows
// NOTILE: scf.if
// NOTILE: } {limit_sub_block_id0}
func.func @odd_rows(%src: memref<7x7xf32>, %dst: memref<7x7xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<7x7xf32>
  hivm.hir.load ins(%src : memref<7x7xf32>) outs(%buf : memref<7x7xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<7x7xf32> to tensor<7x7xf32>
  %e = tensor.empty() : tensor<7x7xf32>
  %r = hivm.hir.vabs ins(%t : tensor<7x7xf32>) outs(%e : tensor<7x7xf32>) -> tensor<7x7xf32>
  hivm.hir.store ins(%r : tensor<7x7xf32>) outs(%dst : memref<7x7xf32>)
  return
}

// -----

// With enable-tile=false a kernel that would split is still limited: nothing is halved.
// CHECK-LABEL: func.func @would_split
// CHECK: map_for_to_forall
// NOTILE-LABEL: func.func @would_split
// NOTILE-NOT: map_for_to_forall
// NOTILE-NOT: tiled_op
// NOTILE: scf.if
// NOTILE-NEXT: hivm.hir.store ins(%{{.*}} : tensor<16x64xf16>)
// NOTILE: } {limit_sub_block_id0}
func.func @would_split(%src: memref<16x64xf16>, %dst: memref<16x64xf16>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf16>
  hivm.hir.load ins(%src : memref<16x64xf16>) outs(%buf : memref<16x64xf16>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf16> to tensor<16x64xf16>
  %e = tensor.empty() : tensor<16x64xf16>
  %r = hivm.hir.vexp ins(%t : tensor<16x64xf16>) outs(%e : tensor<16x64xf16>) -> tensor<16x64xf16>
  hivm.hir.store ins(%r : tensor<16x64xf16>) outs(%dst : memref<16x64xf16>)
  return
}

// -----

// A function with an op tilefold does not lower (a sort with an index output: which index a tie gets is not
// described) is rolled back, never half-rewritten.
// CHECK-LABEL: func.func @not_lowered
// CHECK-NOT: map_for_to_forall
// CHECK: hivm.hir.vsort
// CHECK: scf.if
// CHECK-NEXT: hivm.hir.store
// CHECK: } {limit_sub_block_id0}
func.func @not_lowered(%src: memref<16x64xf32>, %dst: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  %g = memref.alloc() : memref<16x64xf32>
  %gi = memref.alloc() : memref<16x64xi32>
  hivm.hir.vsort ins(%buf : memref<16x64xf32>) outs(%g, %gi : memref<16x64xf32>, memref<16x64xi32>) descending = true sort_axis = 1
  hivm.hir.store ins(%g : memref<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}

// -----

// A function that already reads get_sub_block_idx is bound to its sub-blocks already: left alone.
// CHECK-LABEL: func.func @already_bound
// CHECK-NOT: limit_sub_block_id0
// CHECK-NOT: map_for_to_forall
func.func @already_bound(%src: memref<16x64xf32>, %dst: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %sb = hivm.hir.get_sub_block_idx -> i64
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  hivm.hir.store ins(%buf : memref<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}

// -----

// A copy to GM is not lowered (tilefold writes GM with stores): rolled back, and the copy is guarded like a store
// (LimitUniqueSubBlockIdToStoreCopy limits stores and copies).
// CHECK-LABEL: func.func @copy_out
// CHECK: scf.if
// CHECK-NEXT: hivm.hir.copy ins(%{{.*}} : memref<16x64xf32>) outs(%{{.*}} : memref<16x64xf32>)
// CHECK: } {limit_sub_block_id0}
// NOTILE-LABEL: func.func @copy_out
// NOTILE: scf.if
// NOTILE-NEXT: hivm.hir.copy
// NOTILE: } {limit_sub_block_id0}
func.func @copy_out(%src: memref<16x64xf32>, %dst: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  hivm.hir.copy ins(%buf : memref<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}
