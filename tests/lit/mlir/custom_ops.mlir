// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s
// RUN: tilefold mlir-opt %s --hivm-bind-sub-block='enable-tile=false' -split-input-file | filecheck %s --check-prefix=NOTILE

// Upstream's spelling: indexing_map (singular), iterator_types of #hivm.iterator_type<...>, a named map alias,
// an operand attribute dict (align_dim). Identity maps, all parallel: split on rows, marked tiled_op.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @named_maps
// CHECK: hivm.hir.custom {{.*}}tiled_op{{.*}} "user.scale" ins(%{{.*}} {align_dim = 1 : i64} : tensor<16x64xf16>) outs(%{{.*}} : tensor<16x64xf16>) -> tensor<16x64xf16>
// CHECK: hivm.hir.store {{.*}} {tiled_op}
func.func @named_maps(%src: memref<32x64xf16>, %dst: memref<32x64xf16>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<32x64xf16>
  hivm.hir.load ins(%src : memref<32x64xf16>) outs(%buf : memref<32x64xf16>)
  %t = bufferization.to_tensor %buf restrict writable : memref<32x64xf16> to tensor<32x64xf16>
  %e = tensor.empty() : tensor<32x64xf16>
  %r = hivm.hir.custom {hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.pipe = #hivm.pipe<PIPE_V>, symbol = "k_scale", no_side_effect, iterator_types = [#hivm.iterator_type<parallel>, #hivm.iterator_type<parallel>], indexing_map = [#id, #id]} "user.scale" ins(%t {align_dim = 1 : i64} : tensor<32x64xf16>) outs(%e : tensor<32x64xf16>) -> tensor<32x64xf16>
  hivm.hir.store ins(%r : tensor<32x64xf16>) outs(%dst : memref<32x64xf16>)
  return
}

// -----

// A builtin custom op (a compiler library call) is never split: rolled back, it and the store run on sub-block 0.
// CHECK-LABEL: func.func @builtin_call
// CHECK-NOT: tiled_op
// CHECK: scf.if
// CHECK: hivm.hir.custom "__builtin_scale"
// CHECK: } {limit_sub_block_id0}
func.func @builtin_call(%src: memref<32x64xf16>, %dst: memref<32x64xf16>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<32x64xf16>
  hivm.hir.load ins(%src : memref<32x64xf16>) outs(%buf : memref<32x64xf16>)
  %t = bufferization.to_tensor %buf restrict writable : memref<32x64xf16> to tensor<32x64xf16>
  %e = tensor.empty() : tensor<32x64xf16>
  %r = hivm.hir.custom "__builtin_scale" ins(%t : tensor<32x64xf16>) outs(%e : tensor<32x64xf16>) -> tensor<32x64xf16>
  hivm.hir.store ins(%r : tensor<32x64xf16>) outs(%dst : memref<32x64xf16>)
  return
}

// -----

// Temp buffers (tmps) make a custom op unsafe to duplicate: rolled back.
// CHECK-LABEL: func.func @with_scratch
// CHECK-NOT: tiled_op
// CHECK: tmps(%{{.*}} : memref<512xf32>)
// CHECK: } {limit_sub_block_id0}
func.func @with_scratch(%src: memref<32x64xf32>, %dst: memref<32x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<32x64xf32>
  hivm.hir.load ins(%src : memref<32x64xf32>) outs(%buf : memref<32x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<32x64xf32> to tensor<32x64xf32>
  %scratch = memref.alloc() : memref<512xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %r = hivm.hir.custom {no_side_effect, extra_buffers_types = [f32], extra_buffers_sizes = [512 : i64], iterator_types = [#hivm.iterator_type<parallel>, #hivm.iterator_type<parallel>], indexing_map = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} "user.scratchy" ins(%t : tensor<32x64xf32>) tmps(%scratch : memref<512xf32>) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  hivm.hir.store ins(%r : tensor<32x64xf32>) outs(%dst : memref<32x64xf32>)
  return
}

// -----

// A [reduction, parallel] custom op (a column reduction) keeps d0 whole and splits the columns.
// CHECK-LABEL: func.func @reduce_first
// CHECK: hivm.hir.custom {{.*}} "user.colmax" ins(%{{.*}} : tensor<16x32xf32>) outs(%{{.*}} : tensor<1x32xf32>)
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<1x32xf32>) {{.*}} {tiled_op}
func.func @reduce_first(%src: memref<16x64xf32>, %dst: memref<1x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e = tensor.empty() : tensor<1x64xf32>
  %r = hivm.hir.custom {no_side_effect, iterator_types = [#hivm.iterator_type<reduction>, #hivm.iterator_type<parallel>], indexing_map = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>]} "user.colmax" ins(%t : tensor<16x64xf32>) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  hivm.hir.store ins(%r : tensor<1x64xf32>) outs(%dst : memref<1x64xf32>)
  return
}

// -----

// A custom op with two results (a row max and the exp of each row less its max): each result has its own outs
// init; [parallel, reduction] keeps the rows' elements together and splits the rows, both results halved.
// CHECK-LABEL: func.func @two_results
// CHECK: %r:2 = hivm.hir.custom {{.*}}tiled_op{{.*}} "user.max_exp" ins(%t : tensor<8x32xf32>) outs(%m0, %e0 : tensor<8x1xf32>, tensor<8x32xf32>) -> tensor<8x1xf32>, tensor<8x32xf32>
// CHECK: hivm.hir.store ins(%r#0 : tensor<8x1xf32>) {{.*}} {tiled_op}
// CHECK: hivm.hir.store ins(%r#1 : tensor<8x32xf32>) {{.*}} {tiled_op}
// NOTILE-LABEL: func.func @two_results
// NOTILE: %[[G:.*]]:2 = scf.if %{{.*}} -> (tensor<16x1xf32>, tensor<16x32xf32>) {
// NOTILE-NEXT: %r:2 = hivm.hir.custom
// NOTILE-NEXT: scf.yield %r#0, %r#1 : tensor<16x1xf32>, tensor<16x32xf32>
// NOTILE-NEXT: } else {
// NOTILE-NEXT: scf.yield %m0, %e0 : tensor<16x1xf32>, tensor<16x32xf32>
// NOTILE-NEXT: } {limit_sub_block_id0}
// NOTILE: hivm.hir.store ins(%[[G]]#0 : tensor<16x1xf32>)
func.func @two_results(%src: memref<16x32xf32>, %mx: memref<16x1xf32>, %ex: memref<16x32xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x32xf32>
  hivm.hir.load ins(%src : memref<16x32xf32>) outs(%buf : memref<16x32xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x32xf32> to tensor<16x32xf32>
  %m0 = tensor.empty() : tensor<16x1xf32>
  %e0 = tensor.empty() : tensor<16x32xf32>
  %r:2 = hivm.hir.custom {no_side_effect, iterator_types = [#hivm.iterator_type<parallel>, #hivm.iterator_type<reduction>], indexing_map = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>]} "user.max_exp" ins(%t : tensor<16x32xf32>) outs(%m0, %e0 : tensor<16x1xf32>, tensor<16x32xf32>) -> tensor<16x1xf32>, tensor<16x32xf32>
  hivm.hir.store ins(%r#0 : tensor<16x1xf32>) outs(%mx : memref<16x1xf32>)
  hivm.hir.store ins(%r#1 : tensor<16x32xf32>) outs(%ex : memref<16x32xf32>)
  return
}
