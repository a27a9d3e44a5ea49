// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s

// A row-wise scale and shift of a 32x64 block: every op is elementwise, so the rows split 16 + 16.
// CHECK: #map = affine_map<(d0) -> (d0 * 16)>
// CHECK-LABEL: func.func @scale_shift
// CHECK: scf.for %[[SB:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[OFF:.*]] = affine.apply #map(%[[SB]])
// CHECK: memref.alloc() : memref<16x64xf32>
// CHECK: %[[IN:.*]] = memref.subview %{{.*}}[%[[OFF]], 0] [16, 64] [1, 1]
// CHECK: hivm.hir.load ins(%[[IN]] : memref<16x64xf32, strided<[64, 1], offset: ?>>)
// CHECK: tensor.empty() : tensor<16x64xf32>
// CHECK: hivm.hir.vmul ins(%{{.*}}, %{{.*}} : tensor<16x64xf32>, f32) outs(%{{.*}} : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK: hivm.hir.vadd {{.*}} -> tensor<16x64xf32>
// CHECK: %[[OUT:.*]] = memref.subview %{{.*}}[%[[OFF]], 0] [16, 64] [1, 1]
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<16x64xf32>) outs(%[[OUT]] : {{.*}}) {tiled_op}
// CHECK: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
// CHECK-NOT: limit_sub_block_id0
func.func @scale_shift(%src: memref<?xf32>, %dst: memref<?xf32>) attributes {hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %scale = arith.constant 2.5 : f32
  %gm_in = memref.reinterpret_cast %src to offset: [0], sizes: [32, 64], strides: [64, 1] : memref<?xf32> to memref<32x64xf32, strided<[64, 1]>>
  %gm_out = memref.reinterpret_cast %dst to offset: [0], sizes: [32, 64], strides: [64, 1] : memref<?xf32> to memref<32x64xf32, strided<[64, 1]>>
  %buf = memref.alloc() : memref<32x64xf32>
  hivm.hir.load ins(%gm_in : memref<32x64xf32, strided<[64, 1]>>) outs(%buf : memref<32x64xf32>)
  %x = bufferization.to_tensor %buf restrict writable : memref<32x64xf32> to tensor<32x64xf32>
  %init = tensor.empty() : tensor<32x64xf32>
  %scaled = hivm.hir.vmul ins(%x, %scale : tensor<32x64xf32>, f32) outs(%init : tensor<32x64xf32>) -> tensor<32x64xf32>
  %sum = hivm.hir.vadd ins(%scaled, %x : tensor<32x64xf32>, tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) -> tensor<32x64xf32>
  hivm.hir.store ins(%sum : tensor<32x64xf32>) outs(%gm_out : memref<32x64xf32, strided<[64, 1]>>)
  return
}

// -----

// The same kernel written in the generic op form, memref style (outs buffers, no results).
// CHECK-LABEL: func.func @generic_form
// CHECK: memref.alloc() : memref<16x64xf32>
// CHECK: hivm.hir.vexp ins(%{{.*}} : memref<16x64xf32>) outs(%{{.*}} : memref<16x64xf32>)
// CHECK: hivm.hir.store {{.*}} {tiled_op}
// CHECK: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
func.func @generic_form(%src: memref<32x64xf32>, %dst: memref<32x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %a = memref.alloc() : memref<32x64xf32>
  "hivm.hir.load"(%src, %a) <{operandSegmentSizes = array<i32: 1, 1>}> : (memref<32x64xf32>, memref<32x64xf32>) -> ()
  %b = memref.alloc() : memref<32x64xf32>
  "hivm.hir.vexp"(%a, %b) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (memref<32x64xf32>, memref<32x64xf32>) -> ()
  "hivm.hir.store"(%b, %dst) <{operandSegmentSizes = array<i32: 1, 1>}> : (memref<32x64xf32>, memref<32x64xf32>) -> ()
  return
}

// -----

// An AIC function is not the pass's business: printed unchanged.
// CHECK-LABEL: func.func @cube_side
// CHECK-NOT: scf.for
// CHECK-NOT: limit_sub_block_id0
func.func @cube_side(%src: memref<16x16xf16>) attributes {hivm.func_core_type = #hivm.func_core_type<AIC>} {
  hivm.hir.pipe_barrier[<PIPE_ALL>]
  return
}
