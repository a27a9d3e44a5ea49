// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s

// Clamp from below by a threshold: vcmp (lt) makes a mask, vsel picks per element; both are elementwise and split
// with the rows. The i1 mask keeps its element type, halved.
// CHECK-LABEL: func.func @clamp_below
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK: %[[M:.*]] = hivm.hir.vcmp ins(%{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<16x64xf32>) outs(%{{.*}} : tensor<16x64xi1>) compare_mode = <lt> -> tensor<16x64xi1>
// CHECK: hivm.hir.vsel ins(%[[M]], %{{.*}}, %{{.*}} : tensor<16x64xi1>, tensor<16x64xf32>, tensor<16x64xf32>) outs(%{{.*}} : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<16x64xf32>) outs(%{{.*}} : memref<16x64xf32, strided<[64, 1], offset: ?>>) {tiled_op}
// CHECK: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
func.func @clamp_below(%x: memref<32x64xf32>, %floor: memref<32x64xf32>, %dst: memref<32x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %b0 = memref.alloc() : memref<32x64xf32>
  hivm.hir.load ins(%x : memref<32x64xf32>) outs(%b0 : memref<32x64xf32>)
  %b1 = memref.alloc() : memref<32x64xf32>
  hivm.hir.load ins(%floor : memref<32x64xf32>) outs(%b1 : memref<32x64xf32>)
  %t0 = bufferization.to_tensor %b0 restrict writable : memref<32x64xf32> to tensor<32x64xf32>
  %t1 = bufferization.to_tensor %b1 restrict writable : memref<32x64xf32> to tensor<32x64xf32>
  %me = tensor.empty() : tensor<32x64xi1>
  %m = hivm.hir.vcmp ins(%t0, %t1 : tensor<32x64xf32>, tensor<32x64xf32>) outs(%me : tensor<32x64xi1>) compare_mode = <lt> -> tensor<32x64xi1>
  %e = tensor.empty() : tensor<32x64xf32>
  %r = hivm.hir.vsel ins(%m, %t1, %t0 : tensor<32x64xi1>, tensor<32x64xf32>, tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  hivm.hir.store ins(%r : tensor<32x64xf32>) outs(%dst : memref<32x64xf32>)
  return
}

// -----

// Against a scalar: vcmp with a scalar second operand and vsel with a scalar false value (memref form).
// CHECK-LABEL: func.func @zero_negatives
// CHECK: hivm.hir.vcmp ins(%{{.*}}, %{{.*}} : memref<16x64xf16>, f16) outs(%{{.*}} : memref<16x64xi1>) compare_mode = <ge>
// CHECK: hivm.hir.vsel ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<16x64xi1>, memref<16x64xf16>, f16) outs(%{{.*}} : memref<16x64xf16>)
// CHECK: {tiled_op}
func.func @zero_negatives(%x: memref<32x64xf16>, %dst: memref<32x64xf16>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %zero = arith.constant 0.0 : f16
  %b = memref.alloc() : memref<32x64xf16>
  hivm.hir.load ins(%x : memref<32x64xf16>) outs(%b : memref<32x64xf16>)
  %m = memref.alloc() : memref<32x64xi1>
  hivm.hir.vcmp ins(%b, %zero : memref<32x64xf16>, f16) outs(%m : memref<32x64xi1>) compare_mode = <ge>
  %r = memref.alloc() : memref<32x64xf16>
  hivm.hir.vsel ins(%m, %b, %zero : memref<32x64xi1>, memref<32x64xf16>, f16) outs(%r : memref<32x64xf16>)
  %t = bufferization.to_tensor %r restrict writable : memref<32x64xf16> to tensor<32x64xf16>
  hivm.hir.store ins(%t : tensor<32x64xf16>) outs(%dst : memref<32x64xf16>)
  return
}
