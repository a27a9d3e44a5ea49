// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s
// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file --remarks -o %t 2>&1 | filecheck %s --check-prefix=REMARK

// A window [%off, %off + 16) of a computed 64-element vector, stored at that offset: the vector work splits 32 + 32
// and each sub-block stores the part of the window inside its half, clipped with affine.max / affine.min.
// CHECK-DAG: #[[LO:map[0-9]*]] = affine_map<(d0)[s0] -> (d0 * -32 + s0, 0)>
// CHECK-DAG: #[[CAP:map[0-9]*]] = affine_map<(d0) -> (d0, 32)>
// CHECK-DAG: #[[HI:map[0-9]*]] = affine_map<(d0)[s0] -> (d0 * -32 + s0 + 16, 0)>
// CHECK-DAG: #[[SHIFT:map[0-9]*]] = affine_map<(d0)[s0] -> (d0 * 32 - s0, 0)>
// CHECK-DAG: #[[CAPN:map[0-9]*]] = affine_map<(d0) -> (d0, 16)>
// CHECK-DAG: #{{map[0-9]*}} = affine_map<(d0, d1) -> (d0 - d1)>
// CHECK-LABEL: func.func @window_at_run_time_offset
// CHECK: scf.for %[[SB:.*]] = %c0 to %c2 step %c1 {
// CHECK: hivm.hir.vexp ins(%{{.*}} : tensor<32xf32>)
// CHECK: %[[V:.*]] = memref.subview %o[%off] [16] [1]
// CHECK: %[[M0:.*]] = affine.max #[[LO]](%[[SB]])[%off]
// CHECK-NEXT: %[[L:.*]] = affine.min #[[CAP]](%[[M0]])
// CHECK-NEXT: %[[M1:.*]] = affine.max #[[HI]](%[[SB]])[%off]
// CHECK-NEXT: %[[H:.*]] = affine.min #[[CAP]](%[[M1]])
// CHECK-NEXT: %[[N:.*]] = affine.apply #[[DIFF:map[0-9]*]](%[[H]], %[[L]])
// CHECK-NEXT: %[[M2:.*]] = affine.max #[[SHIFT]](%[[SB]])[%off]
// CHECK-NEXT: %[[S:.*]] = affine.min #[[CAPN]](%[[M2]])
// CHECK-NEXT: %[[P:.*]] = tensor.extract_slice %y[%[[L]]] [%[[N]]] [1] : tensor<32xf32> to tensor<?xf32>
// CHECK-NEXT: %[[D:.*]] = memref.subview %[[V]][%[[S]]] [%[[N]]] [1] : memref<16xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT: hivm.hir.store ins(%[[P]] : tensor<?xf32>) outs(%[[D]] : memref<?xf32, strided<[1], offset: ?>>) {tiled_op}
// CHECK: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
// CHECK-NOT: limit_sub_block_id0
func.func @window_at_run_time_offset(%a: memref<64xf32>, %o: memref<64xf32>, %off: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<64xf32>
  hivm.hir.load ins(%a : memref<64xf32>) outs(%buf : memref<64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<64xf32> to tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %y = hivm.hir.vexp ins(%t : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = tensor.extract_slice %y[%off] [16] [1] : tensor<64xf32> to tensor<16xf32>
  %v = memref.subview %o[%off] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
  hivm.hir.store ins(%s : tensor<16xf32>) outs(%v : memref<16xf32, strided<[1], offset: ?>>)
  return
}

// -----

// One element [0, 1) of a 64-element vector: split 32 + 32, sub-block 1's count min(max(1 - 32, 0), 32) - 0 = 0
// (its part is empty), at the clipped offset min(max(32, 0), 1) = 1 of the 1-element destination.
// CHECK-DAG: #[[LO:map[0-9]*]] = affine_map<(d0) -> (d0 * -32, 0)>
// CHECK-DAG: #[[HI:map[0-9]*]] = affine_map<(d0) -> (d0 * -32 + 1, 0)>
// CHECK-DAG: #[[SH:map[0-9]*]] = affine_map<(d0) -> (d0 * 32, 0)>
// CHECK-LABEL: func.func @first_element
// CHECK: hivm.hir.vadd ins(%{{.*}}, %{{.*}} : tensor<32xf32>, tensor<32xf32>)
// CHECK: affine.max #[[LO]](%sb)
// CHECK: affine.max #[[HI]](%sb)
// CHECK: affine.max #[[SH]](%sb)
// CHECK: %[[P:.*]] = tensor.extract_slice %y[%{{.*}}] [%[[N:.*]]] [1] : tensor<32xf32> to tensor<?xf32>
// CHECK-NEXT: %[[D:.*]] = memref.subview %o[%{{.*}}] [%[[N]]] [1] : memref<1xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT: hivm.hir.store ins(%[[P]] : tensor<?xf32>) outs(%[[D]] : {{.*}}) {tiled_op}
// CHECK-NOT: limit_sub_block_id0
func.func @first_element(%a: memref<64xf32>, %o: memref<1xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<64xf32>
  hivm.hir.load ins(%a : memref<64xf32>) outs(%buf : memref<64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<64xf32> to tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %y = hivm.hir.vadd ins(%t, %t : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = tensor.extract_slice %y[0] [1] [1] : tensor<64xf32> to tensor<1xf32>
  hivm.hir.store ins(%s : tensor<1xf32>) outs(%o : memref<1xf32>)
  return
}

// -----

// A static window [28, 58) crossing the halves, its second part (26) longer than its first (4): still split; the
// offsets fold into the maps.
// CHECK-DAG: #[[LO:map[0-9]*]] = affine_map<(d0) -> (d0 * -32 + 28, 0)>
// CHECK-DAG: #[[HI:map[0-9]*]] = affine_map<(d0) -> (d0 * -32 + 58, 0)>
// CHECK-DAG: #[[SH:map[0-9]*]] = affine_map<(d0) -> (d0 * 32 - 28, 0)>
// CHECK-DAG: #[[CAPN:map[0-9]*]] = affine_map<(d0) -> (d0, 30)>
// CHECK-LABEL: func.func @crossing_window
// CHECK: hivm.hir.vmul ins(%{{.*}}, %{{.*}} : tensor<32xf16>, tensor<32xf16>)
// CHECK: affine.max #[[LO]](%sb)
// CHECK: affine.max #[[HI]](%sb)
// CHECK: affine.max #[[SH]](%sb)
// CHECK-NEXT: affine.min #[[CAPN]]
// CHECK: tensor.extract_slice %y[%{{.*}}] [%{{.*}}] [1] : tensor<32xf16> to tensor<?xf16>
// CHECK: memref.subview %v[%{{.*}}] [%{{.*}}] [1] : memref<30xf16, strided<[1], offset: 28>> to memref<?xf16, strided<[1], offset: ?>>
// CHECK: {tiled_op}
func.func @crossing_window(%a: memref<64xf16>, %o: memref<64xf16>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<64xf16>
  hivm.hir.load ins(%a : memref<64xf16>) outs(%buf : memref<64xf16>)
  %t = bufferization.to_tensor %buf restrict writable : memref<64xf16> to tensor<64xf16>
  %e = tensor.empty() : tensor<64xf16>
  %y = hivm.hir.vmul ins(%t, %t : tensor<64xf16>, tensor<64xf16>) outs(%e : tensor<64xf16>) -> tensor<64xf16>
  %s = tensor.extract_slice %y[28] [30] [1] : tensor<64xf16> to tensor<30xf16>
  %v = memref.subview %o[28] [30] [1] : memref<64xf16> to memref<30xf16, strided<[1], offset: 28>>
  hivm.hir.store ins(%s : tensor<30xf16>) outs(%v : memref<30xf16, strided<[1], offset: 28>>)
  return
}

// -----

// A row window of a 2-D block, rows [40, 56) of 64, split on rows (axis 0): sub-block 0's part is empty.
// CHECK-LABEL: func.func @row_window
// CHECK: hivm.hir.vabs ins(%{{.*}} : tensor<32x64xf32>)
// CHECK: affine.max #{{map[0-9]*}}(%sb)
// CHECK: tensor.extract_slice %r[%{{.*}}, 0] [%{{.*}}, 64] [1, 1] : tensor<32x64xf32> to tensor<?x64xf32>
// CHECK: memref.subview %v[%{{.*}}, 0] [%{{.*}}, 64] [1, 1] : memref<16x64xf32, strided<[64, 1], offset: 2560>> to memref<?x64xf32, strided<[64, 1], offset: ?>>
// CHECK: {tiled_op}
func.func @row_window(%a: memref<64x64xf32>, %o: memref<64x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<64x64xf32>
  hivm.hir.load ins(%a : memref<64x64xf32>) outs(%buf : memref<64x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<64x64xf32> to tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %r = hivm.hir.vabs ins(%t : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = tensor.extract_slice %r[40, 0] [16, 64] [1, 1] : tensor<64x64xf32> to tensor<16x64xf32>
  %v = memref.subview %o[40, 0] [16, 64] [1, 1] : memref<64x64xf32> to memref<16x64xf32, strided<[64, 1], offset: 2560>>
  hivm.hir.store ins(%s : tensor<16x64xf32>) outs(%v : memref<16x64xf32, strided<[64, 1], offset: 2560>>)
  return
}

// -----

// Windows [k, k + 16) for k = 0, 16, 32, each stored where it was cut: element e of the vector always lands at GM e,
// so each sub-block writes only its own half of %o in every iteration. Split, the clip arithmetic inside the loop.
// CHECK-LABEL: func.func @windows_in_a_loop
// CHECK: scf.for %[[SB:.*]] = %c0 to %c2 step %c1 {
// CHECK: hivm.hir.vexp ins(%{{.*}} : tensor<32xf32>)
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %c48 step %c16 {
// CHECK: affine.max #{{map[0-9]*}}(%[[SB]])[%[[K]]]
// CHECK: tensor.extract_slice %y[%{{.*}}] [%{{.*}}] [1] : tensor<32xf32> to tensor<?xf32>
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<?xf32>) outs(%{{.*}} : memref<?xf32, strided<[1], offset: ?>>) {tiled_op}
// CHECK: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
// CHECK-NOT: limit_sub_block_id0
// REMARK-DAG: remark: @windows_in_a_loop: split on axis 1
func.func @windows_in_a_loop(%a: memref<64xf32>, %o: memref<64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %c16 = arith.constant 16 : index
  %buf = memref.alloc() : memref<64xf32>
  hivm.hir.load ins(%a : memref<64xf32>) outs(%buf : memref<64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<64xf32> to tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %y = hivm.hir.vexp ins(%t : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  scf.for %k = %c0 to %c48 step %c16 {
    %s = tensor.extract_slice %y[%k] [16] [1] : tensor<64xf32> to tensor<16xf32>
    %v = memref.subview %o[%k] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
    hivm.hir.store ins(%s : tensor<16xf32>) outs(%v : memref<16xf32, strided<[1], offset: ?>>)
  }
  return
}

// -----

// Every iteration stores a different window of the vector into the same 16 elements of %o: sub-block 0's part of
// one iteration and sub-block 1's part of another name the same bytes. Rolled back, with the reason.
// CHECK-LABEL: func.func @windows_into_one_place
// CHECK-NOT: map_for_to_forall
// CHECK: scf.if
// CHECK: } {limit_sub_block_id0}
// REMARK-DAG: remark: @windows_into_one_place: rolled back: gm_read_after_write: {{.*}}a stored window in a loop{{.*}}every iteration of loop k stores the same GM window
func.func @windows_into_one_place(%a: memref<64xf32>, %o: memref<16xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %c16 = arith.constant 16 : index
  %buf = memref.alloc() : memref<64xf32>
  hivm.hir.load ins(%a : memref<64xf32>) outs(%buf : memref<64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<64xf32> to tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %y = hivm.hir.vexp ins(%t : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  scf.for %k = %c0 to %c48 step %c16 {
    %s = tensor.extract_slice %y[%k] [16] [1] : tensor<64xf32> to tensor<16xf32>
    hivm.hir.store ins(%s : tensor<16xf32>) outs(%o : memref<16xf32>)
  }
  return
}
