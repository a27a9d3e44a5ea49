// RUN: tilefold mlir-opt %s -hivm-bind-sub-block | filecheck %s
// RUN: tilefold mlir-opt %s --hivm-bind-sub-block='enable-tile=false' | filecheck %s --check-prefix=FALLBACK

// The shapes of AutoSubtiling.md's two examples (a 64-element vexp then vabs, stored), on our own kernel. Where
// the reference shows upstream's spelling, the output follows it: the halved ops share one new halved init (its
// %new_init), the store writes a [32] [1] subview of the output, and the fallback compares
// hivm.hir.get_sub_block_idx with 0 (arith.cmpi eq) and runs the store under scf.if. The reference's examples are
// after the for-loop is mapped to the sub-block ("Map the for-loop to subblock"), and write the offset as %0 and
// the subview result without its layout; this pass prints the loop itself (map_for_to_forall, #hivm.sub_block<x>),
// the offset sb * 32 (affine.apply) and the strided result type MLIR requires of a subview at a dynamic offset.
// CHECK: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0 * 32)>
// CHECK-LABEL: func.func @exp_then_abs
// CHECK: scf.for %[[SB:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: %[[OFF:.*]] = affine.apply #[[MAP]](%[[SB]])
// CHECK: %[[IN:.*]] = memref.subview %in[%[[OFF]]] [32] [1] : memref<64xf16> to memref<32xf16, strided<[1], offset: ?>>
// CHECK-NEXT: hivm.hir.load ins(%[[IN]] : memref<32xf16, strided<[1], offset: ?>>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<32xf16>
// CHECK-NOT: tensor.empty
// CHECK: %[[E:.*]] = hivm.hir.vexp ins(%{{.*}} : tensor<32xf16>) outs(%[[INIT]] : tensor<32xf16>) -> tensor<32xf16>
// CHECK-NEXT: %[[A:.*]] = hivm.hir.vabs ins(%[[E]] : tensor<32xf16>) outs(%[[INIT]] : tensor<32xf16>) -> tensor<32xf16>
// CHECK-NEXT: %[[OUT:.*]] = memref.subview %out[%[[OFF]]] [32] [1] : memref<64xf16> to memref<32xf16, strided<[1], offset: ?>>
// CHECK-NEXT: hivm.hir.store ins(%[[A]] : tensor<32xf16>) outs(%[[OUT]] : memref<32xf16, strided<[1], offset: ?>>) {tiled_op}
// CHECK-NEXT: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
// CHECK-NOT: limit_sub_block_id0
// FALLBACK-LABEL: func.func @exp_then_abs
// FALLBACK-NOT: scf.for
// FALLBACK: hivm.hir.vexp ins(%{{.*}} : tensor<64xf16>)
// FALLBACK: hivm.hir.vabs ins(%{{.*}} : tensor<64xf16>)
// FALLBACK-NEXT: %[[IDX:.*]] = hivm.hir.get_sub_block_idx -> i64
// FALLBACK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
// FALLBACK-NEXT: %[[C:.*]] = arith.cmpi eq, %[[IDX]], %[[ZERO]] : i64
// FALLBACK-NEXT: scf.if %[[C]] {
// FALLBACK-NEXT: hivm.hir.store ins(%{{.*}} : tensor<64xf16>) outs(%out : memref<64xf16>)
// FALLBACK-NEXT: } {limit_sub_block_id0}
func.func @exp_then_abs(%in: memref<64xf16>, %out: memref<64xf16>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<64xf16>
  hivm.hir.load ins(%in : memref<64xf16>) outs(%buf : memref<64xf16>)
  %x = bufferization.to_tensor %buf restrict writable : memref<64xf16> to tensor<64xf16>
  %init = tensor.empty() : tensor<64xf16>
  %e = hivm.hir.vexp ins(%x : tensor<64xf16>) outs(%init : tensor<64xf16>) -> tensor<64xf16>
  %a = hivm.hir.vabs ins(%e : tensor<64xf16>) outs(%init : tensor<64xf16>) -> tensor<64xf16>
  hivm.hir.store ins(%a : tensor<64xf16>) outs(%out : memref<64xf16>)
  return
}
