// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s
// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file --remarks -o %t 2>&1 | filecheck %s --check-prefix=REMARK

// A scalar loop writing element [i, 0] of each row of a computed tile (tensor.extract / tensor.insert on the
// scalar unit). Element writes have no sub-block strategy: splitting them blindly could leave a half whose
// elements the other sub-block wrote, so the pass does not split and the store runs on sub-block 0 only.
// CHECK-LABEL: func.func @double_first_column
// CHECK-NOT: map_for_to_forall
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%{{.*}} = %y) -> (tensor<16x64xf32>) {
// CHECK: tensor.extract
// CHECK: tensor.insert
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: hivm.hir.store ins(%{{.*}} : tensor<16x64xf32>)
// CHECK: } {limit_sub_block_id0}
func.func @double_first_column(%x: memref<16x64xf32>, %dst: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  %b = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%x : memref<16x64xf32>) outs(%b : memref<16x64xf32>)
  %t = bufferization.to_tensor %b restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %y = hivm.hir.vexp ins(%t : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %y) -> (tensor<16x64xf32>) {
    %v = tensor.extract %acc[%i, %c0] : tensor<16x64xf32>
    %w = arith.mulf %v, %two : f32
    %n = tensor.insert %w into %acc[%i, %c0] : tensor<16x64xf32>
    scf.yield %n : tensor<16x64xf32>
  }
  hivm.hir.store ins(%r : tensor<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}

// -----

// An element read feeding vector work: the scale is element [0, 0] of the loaded tile. The read needs the whole
// tile and the vector work a half of the same load: the pass does not load it twice, so it rolls back and the
// store runs on sub-block 0 only.
// CHECK-LABEL: func.func @scale_by_first
// CHECK-NOT: map_for_to_forall
// CHECK: tensor.extract %{{.*}}[%c0, %c0] : tensor<16x64xf32>
// CHECK: scf.if
// CHECK-NEXT: hivm.hir.store ins(%{{.*}} : tensor<16x64xf32>)
// CHECK: } {limit_sub_block_id0}
func.func @scale_by_first(%x: memref<16x64xf32>, %dst: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %b = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%x : memref<16x64xf32>) outs(%b : memref<16x64xf32>)
  %t = bufferization.to_tensor %b restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %s = tensor.extract %t[%c0, %c0] : tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %y = hivm.hir.vmul ins(%t, %s : tensor<16x64xf32>, f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  hivm.hir.store ins(%y : tensor<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}

// The remarks (stderr, after the output): why each function stayed whole.
// REMARK: remark: @double_first_column: rolled back: the function has element writes (pl.write)
// REMARK: remark: @scale_by_first: rolled back: axis 0: window stuck on tile.load -> {{.*}}: value is needed both whole and halved
