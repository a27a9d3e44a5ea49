// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s
// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file --remarks -o %t 2>&1 | filecheck %s --check-prefix=REMARK

// Windows, casts and constants tilefold does not lower: each function is rolled back (its store limited to
// sub-block 0), the remark naming the op's file:line:col and why. tests/mlir/test_mlir_dynamic_windows.py checks
// that `tilefold run` refuses each at the same place.

// A run-time size with no bound: tensor.empty(%n) gives no static extent for the tile.
// CHECK-LABEL: func.func @unbounded_size
// CHECK: } {limit_sub_block_id0}
// REMARK: remark: @unbounded_size: not lowered, rolled back: {{.*}}dynamic_windows_refused.mlir:16:3
// REMARK: error: tensor.empty: the run-time size on axis 0 has no static bound
func.func @unbounded_size(%a: memref<64xf32>, %o: memref<64xf32>, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %win = memref.subview %a[0] [%n] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  %e = tensor.empty(%n) : tensor<?xf32>
  %t = hivm.hir.load ins(%win : memref<?xf32, strided<[1]>>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %ow = memref.subview %o[0] [%n] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  hivm.hir.store ins(%t : tensor<?xf32>) outs(%ow : memref<?xf32, strided<[1]>>)
  return
}

// -----

// A bounded size (at most 16) at an offset with no bound: the 16-element window may leave the 64-element tile.
// CHECK-LABEL: func.func @offset_unbounded
// REMARK: remark: @offset_unbounded: not lowered, rolled back: {{.*}}dynamic_windows_refused.mlir:35:3
// REMARK: error: tensor.extract_slice: the window [i, +16) on axis 0 is not provably inside the extent 64
func.func @offset_unbounded(%a: memref<64xf32>, %o: memref<64xf32>, %i: index, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c16 = arith.constant 16 : index
  %sz = arith.minsi %c16, %n : index
  %buf = memref.alloc() : memref<64xf32>
  hivm.hir.load ins(%a : memref<64xf32>) outs(%buf : memref<64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<64xf32> to tensor<64xf32>
  %s = tensor.extract_slice %t[%i] [%sz] [1] : tensor<64xf32> to tensor<?xf32>
  %ow = memref.subview %o[%i] [%sz] [1] : memref<64xf32> to memref<?xf32, strided<[1], offset: ?>>
  hivm.hir.store ins(%s : tensor<?xf32>) outs(%ow : memref<?xf32, strided<[1], offset: ?>>)
  return
}

// -----

// Every other row (a stride on the first axis): only the last axis is gathered, so the slice is refused.
// CHECK-LABEL: func.func @strided_slice
// REMARK: remark: @strided_slice: not lowered, rolled back: {{.*}}dynamic_windows_refused.mlir:51:3
// REMARK: error: tensor.extract_slice: a slice with strides [2, 1] is not lowered (unit strides, or a static stride on the last axis
func.func @strided_slice(%a: memref<8x32xf32>, %o: memref<4x32xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<8x32xf32>
  hivm.hir.load ins(%a : memref<8x32xf32>) outs(%buf : memref<8x32xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<8x32xf32> to tensor<8x32xf32>
  %s = tensor.extract_slice %t[0, 0] [4, 32] [2, 1] : tensor<8x32xf32> to tensor<4x32xf32>
  hivm.hir.store ins(%s : tensor<4x32xf32>) outs(%o : memref<4x32xf32>)
  return
}

// -----

// A non-splat table of 128 numbers: above the 64 elements lowered as writes.
// CHECK-LABEL: func.func @big_table
// REMARK: remark: @big_table: not lowered, rolled back: {{.*}}dynamic_windows_refused.mlir:63:3
// REMARK: error: arith.constant: a non-splat dense constant of 128 elements is not lowered (at most 64)
func.func @big_table(%o: memref<2x64xi32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %k = arith.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]]> : tensor<2x64xi32>
  hivm.hir.store ins(%k : tensor<2x64xi32>) outs(%o : memref<2x64xi32>)
  return
}

// -----

// A cast of a buffer at an offset (elements 8..71 of 128): it could alias the rest of the buffer in ways a tile
// cannot say.
// CHECK-LABEL: func.func @shifted_cast
// REMARK: remark: @shifted_cast: not lowered, rolled back: {{.*}}dynamic_windows_refused.mlir:78:3
// REMARK: error: memref.reinterpret_cast: a reinterpret_cast of the local buffer %buf other than a contiguous row-major reshape
func.func @shifted_cast(%a: memref<128xf32>, %o: memref<64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<128xf32>
  hivm.hir.load ins(%a : memref<128xf32>) outs(%buf : memref<128xf32>)
  %v = memref.reinterpret_cast %buf to offset: [8], sizes: [64], strides: [1] : memref<128xf32> to memref<64xf32, strided<[1], offset: 8>>
  hivm.hir.store ins(%v : memref<64xf32, strided<[1], offset: 8>>) outs(%o : memref<64xf32>)
  return
}

// -----

// A rank-3 window that is not a rectangle of the tile flattened to 2-D (a partial middle axis under two pages).
// CHECK-LABEL: func.func @ragged_cube
// REMARK: remark: @ragged_cube: not lowered, rolled back: {{.*}}dynamic_windows_refused.mlir:92:3
// REMARK: error: memref.subview: the window [2, 2, 32] of a [2, 4, 32] tile is not a rectangle of the tile flattened to 2-D
func.func @ragged_cube(%a: memref<2x4x32xf32>, %o: memref<2x2x32xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<2x4x32xf32>
  hivm.hir.load ins(%a : memref<2x4x32xf32>) outs(%buf : memref<2x4x32xf32>)
  %sv = memref.subview %buf[0, 1, 0] [2, 2, 32] [1, 1, 1] : memref<2x4x32xf32> to memref<2x2x32xf32, strided<[128, 32, 1], offset: 32>>
  hivm.hir.store ins(%sv : memref<2x2x32xf32, strided<[128, 32, 1], offset: 32>>) outs(%o : memref<2x2x32xf32>)
  return
}

// -----

// Vector work on a run-time-size value: tilefold computes on static tiles (compute on the whole buffer and slice
// at the store instead).
// CHECK-LABEL: func.func @compute_on_tail
// REMARK: remark: @compute_on_tail: not lowered, rolled back: {{.*}}dynamic_windows_refused.mlir:112:3
// REMARK: error: hivm.hir.vexp: type tensor<?xf32> is not a static shaped tile
func.func @compute_on_tail(%a: memref<64xf32>, %o: memref<64xf32>, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c64 = arith.constant 64 : index
  %sz = arith.minsi %c64, %n : index
  %buf = memref.alloc() : memref<64xf32>
  hivm.hir.load ins(%a : memref<64xf32>) outs(%buf : memref<64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<64xf32> to tensor<64xf32>
  %s = tensor.extract_slice %t[0] [%sz] [1] : tensor<64xf32> to tensor<?xf32>
  %e = tensor.empty(%sz) : tensor<?xf32>
  %y = hivm.hir.vexp ins(%s : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %ow = memref.subview %o[0] [%sz] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  hivm.hir.store ins(%y : tensor<?xf32>) outs(%ow : memref<?xf32, strided<[1]>>)
  return
}

// -----

// A whole static tile stored into a run-time-size GM window: which elements would be written is not said.
// CHECK-LABEL: func.func @static_into_tail
// REMARK: remark: @static_into_tail: not lowered, rolled back: {{.*}}dynamic_windows_refused.mlir:130:3
// REMARK: error: hivm.hir.store: a store whose tile and GM window do not have the same static sizes and run-time sizes on the same axes is not lowered
func.func @static_into_tail(%a: memref<64xf32>, %o: memref<64xf32>, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c64 = arith.constant 64 : index
  %sz = arith.minsi %c64, %n : index
  %buf = memref.alloc() : memref<64xf32>
  hivm.hir.load ins(%a : memref<64xf32>) outs(%buf : memref<64xf32>)
  %ow = memref.subview %o[0] [%sz] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  hivm.hir.store ins(%buf : memref<64xf32>) outs(%ow : memref<?xf32, strided<[1]>>)
  return
}
