// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s
// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file --remarks -o %t 2>&1 | filecheck %s --check-prefix=REMARK

// Windows whose size is only known at run time (the last block of a Triton-Ascend loop, bounded by affine.min or
// arith.minsi), windows of windows, reshaping casts of local buffers, alloca buffers and tensor constants. tilefold
// lowers a run-time-size window to a tile of its static bound with the size as the tile's valid extent; the pass
// keeps such partial tiles whole, so these functions are rolled back (their stores limited to sub-block 0), which is
// always correct. Each chunk is simulated with the pass on and off in tests/mlir/test_mlir_dynamic_windows.py.

// The tail of a vector: at most 64 elements from %off (affine.min), loaded into a window of a zero-filled buffer,
// exp'd whole, and the first %sz stored back.
// CHECK-LABEL: func.func @tail_block
// CHECK: %bw = memref.subview %buf[0] [%sz] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
// CHECK: %ys = tensor.extract_slice %y[0] [%sz] [1] : tensor<64xf32> to tensor<?xf32>
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: hivm.hir.store ins(%ys : tensor<?xf32>) outs(%ow : memref<?xf32, strided<[1], offset: ?>>)
// CHECK-NEXT: } {limit_sub_block_id0}
// CHECK-NOT: map_for_to_forall
// REMARK: remark: @tail_block: {{.*}}rolled back
#tail = affine_map<(d0)[s0] -> (64, s0 - d0)>
func.func @tail_block(%a: memref<200xf32>, %o: memref<200xf32>, %off: index, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %sz = affine.min #tail(%off)[%n]
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<64xf32>
  hivm.hir.vbrc ins(%zero : f32) outs(%buf : memref<64xf32>)
  %win = memref.subview %a[%off] [%sz] [1] : memref<200xf32> to memref<?xf32, strided<[1], offset: ?>>
  %bw = memref.subview %buf[0] [%sz] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  hivm.hir.load ins(%win : memref<?xf32, strided<[1], offset: ?>>) outs(%bw : memref<?xf32, strided<[1]>>)
  %t = bufferization.to_tensor %buf restrict writable : memref<64xf32> to tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %y = hivm.hir.vexp ins(%t : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %ys = tensor.extract_slice %y[0] [%sz] [1] : tensor<64xf32> to tensor<?xf32>
  %ow = memref.subview %o[%off] [%sz] [1] : memref<200xf32> to memref<?xf32, strided<[1], offset: ?>>
  hivm.hir.store ins(%ys : tensor<?xf32>) outs(%ow : memref<?xf32, strided<[1], offset: ?>>)
  return
}

// -----

// A masked sum: the buffer is filled with zeros, the tail loaded over them, and the whole 64 summed. The elements past
// the tail must stay zero (the write keeps them: a select between the loaded part and the old window).
// CHECK-LABEL: func.func @tail_sum
// CHECK: hivm.hir.vreduce <sum> ins(%t : tensor<64xf32>)
// CHECK: } {limit_sub_block_id0}
// REMARK: remark: @tail_sum: {{.*}}rolled back
func.func @tail_sum(%a: memref<200xf32>, %o: memref<1xf32>, %off: index, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c64 = arith.constant 64 : index
  %rem = arith.subi %n, %off : index
  %sz = arith.minsi %c64, %rem : index
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<64xf32>
  hivm.hir.vbrc ins(%zero : f32) outs(%buf : memref<64xf32>)
  %win = memref.subview %a[%off] [%sz] [1] : memref<200xf32> to memref<?xf32, strided<[1], offset: ?>>
  %bw = memref.subview %buf[0] [%sz] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  hivm.hir.load ins(%win : memref<?xf32, strided<[1], offset: ?>>) outs(%bw : memref<?xf32, strided<[1]>>)
  %t = bufferization.to_tensor %buf restrict writable : memref<64xf32> to tensor<64xf32>
  %e = tensor.empty() : tensor<1xf32>
  %s = hivm.hir.vreduce <sum> ins(%t : tensor<64xf32>) outs(%e : tensor<1xf32>) reduce_dims = [0] -> tensor<1xf32>
  hivm.hir.store ins(%s : tensor<1xf32>) outs(%o : memref<1xf32>)
  return
}

// -----

// A fresh buffer (nothing written before the load): its part past the tail stays undefined, so the buffer is the
// loaded partial tile; the abs of it is stored through a buffer window of the same run-time size.
// CHECK-LABEL: func.func @fresh_tail
// CHECK: hivm.hir.vabs ins(%buf : memref<32xf32>) outs(%res : memref<32xf32>)
// CHECK: hivm.hir.store ins(%rw : memref<?xf32, strided<[1]>>) outs(%ow : memref<?xf32, strided<[1], offset: ?>>)
// CHECK: } {limit_sub_block_id0}
// REMARK: remark: @fresh_tail: {{.*}}rolled back
func.func @fresh_tail(%a: memref<100xf32>, %o: memref<100xf32>, %off: index, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c32 = arith.constant 32 : index
  %rem = arith.subi %n, %off : index
  %sz = arith.minsi %rem, %c32 : index
  %buf = memref.alloc() : memref<32xf32>
  %win = memref.subview %a[%off] [%sz] [1] : memref<100xf32> to memref<?xf32, strided<[1], offset: ?>>
  %bw = memref.subview %buf[0] [%sz] [1] : memref<32xf32> to memref<?xf32, strided<[1]>>
  hivm.hir.load ins(%win : memref<?xf32, strided<[1], offset: ?>>) outs(%bw : memref<?xf32, strided<[1]>>)
  %res = memref.alloc() : memref<32xf32>
  hivm.hir.vabs ins(%buf : memref<32xf32>) outs(%res : memref<32xf32>)
  %rw = memref.subview %res[0] [%sz] [1] : memref<32xf32> to memref<?xf32, strided<[1]>>
  %ow = memref.subview %o[%off] [%sz] [1] : memref<100xf32> to memref<?xf32, strided<[1], offset: ?>>
  hivm.hir.store ins(%rw : memref<?xf32, strided<[1]>>) outs(%ow : memref<?xf32, strided<[1], offset: ?>>)
  return
}

// -----

// The last block of rows: at most 8 rows from %r (affine.min), into a buffer filled with -1; the whole 8x32 buffer
// is stored (rows past the tail keep -1).
// CHECK-LABEL: func.func @tail_rows
// CHECK: %bw = memref.subview %buf[0, 0] [%rows, 32] [1, 1] : memref<8x32xf32> to memref<?x32xf32, strided<[32, 1]>>
// CHECK: } {limit_sub_block_id0}
// REMARK: remark: @tail_rows: {{.*}}rolled back
#rows = affine_map<(d0)[s0] -> (8, s0 - d0)>
func.func @tail_rows(%a: memref<20x32xf32>, %o: memref<8x32xf32>, %r: index, %m: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %rows = affine.min #rows(%r)[%m]
  %minus = arith.constant -1.0 : f32
  %buf = memref.alloc() : memref<8x32xf32>
  hivm.hir.vbrc ins(%minus : f32) outs(%buf : memref<8x32xf32>)
  %win = memref.subview %a[%r, 0] [%rows, 32] [1, 1] : memref<20x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
  %bw = memref.subview %buf[0, 0] [%rows, 32] [1, 1] : memref<8x32xf32> to memref<?x32xf32, strided<[32, 1]>>
  hivm.hir.load ins(%win : memref<?x32xf32, strided<[32, 1], offset: ?>>) outs(%bw : memref<?x32xf32, strided<[32, 1]>>)
  hivm.hir.store ins(%buf : memref<8x32xf32>) outs(%o : memref<8x32xf32>)
  return
}

// -----

// The last block of columns (at most 16 from %c) into a buffer filled with 2, stored whole.
// CHECK-LABEL: func.func @tail_cols
// CHECK: } {limit_sub_block_id0}
// REMARK: remark: @tail_cols: {{.*}}rolled back
#cols = affine_map<(d0)[s0] -> (16, s0 - d0)>
func.func @tail_cols(%a: memref<4x40xf32>, %o: memref<4x16xf32>, %c: index, %k: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %cols = affine.min #cols(%c)[%k]
  %two = arith.constant 2.0 : f32
  %buf = memref.alloc() : memref<4x16xf32>
  hivm.hir.vbrc ins(%two : f32) outs(%buf : memref<4x16xf32>)
  %win = memref.subview %a[0, %c] [4, %cols] [1, 1] : memref<4x40xf32> to memref<4x?xf32, strided<[40, 1], offset: ?>>
  %bw = memref.subview %buf[0, 0] [4, %cols] [1, 1] : memref<4x16xf32> to memref<4x?xf32, strided<[16, 1]>>
  hivm.hir.load ins(%win : memref<4x?xf32, strided<[40, 1], offset: ?>>) outs(%bw : memref<4x?xf32, strided<[16, 1]>>)
  hivm.hir.store ins(%buf : memref<4x16xf32>) outs(%o : memref<4x16xf32>)
  return
}

// -----

// A run-time-size prefix of a loaded vector inserted into a tile of ones: the ones past the prefix stay.
// CHECK-LABEL: func.func @insert_prefix
// CHECK: %ins = tensor.insert_slice %p into %f[0] [%sz] [1] : tensor<?xf32> into tensor<32xf32>
// CHECK: } {limit_sub_block_id0}
// REMARK: remark: @insert_prefix: {{.*}}rolled back
func.func @insert_prefix(%a: memref<32xf32>, %o: memref<32xf32>, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c32 = arith.constant 32 : index
  %sz = arith.minsi %n, %c32 : index
  %one = arith.constant 1.0 : f32
  %buf = memref.alloc() : memref<32xf32>
  hivm.hir.load ins(%a : memref<32xf32>) outs(%buf : memref<32xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<32xf32> to tensor<32xf32>
  %p = tensor.extract_slice %t[0] [%sz] [1] : tensor<32xf32> to tensor<?xf32>
  %e = tensor.empty() : tensor<32xf32>
  %f = hivm.hir.vbrc ins(%one : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %ins = tensor.insert_slice %p into %f[0] [%sz] [1] : tensor<?xf32> into tensor<32xf32>
  hivm.hir.store ins(%ins : tensor<32xf32>) outs(%o : memref<32xf32>)
  return
}

// -----

// A window of a window of a buffer: rows 2..5 of the buffer, then columns 8..23 of those; the load fills that
// patch of a zero buffer, stored whole. The inner subview is one window of the buffer at offsets [2, 8].
// CHECK-LABEL: func.func @window_of_window
// CHECK: %inner = memref.subview %outer[0, 8] [4, 16] [1, 1]
// CHECK: } {limit_sub_block_id0}
// REMARK: remark: @window_of_window: {{.*}}rolled back
func.func @window_of_window(%a: memref<4x16xf32>, %o: memref<8x32xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<8x32xf32>
  hivm.hir.vbrc ins(%zero : f32) outs(%buf : memref<8x32xf32>)
  %outer = memref.subview %buf[2, 0] [4, 32] [1, 1] : memref<8x32xf32> to memref<4x32xf32, strided<[32, 1], offset: 64>>
  %inner = memref.subview %outer[0, 8] [4, 16] [1, 1] : memref<4x32xf32, strided<[32, 1], offset: 64>> to memref<4x16xf32, strided<[32, 1], offset: 72>>
  hivm.hir.load ins(%a : memref<4x16xf32>) outs(%inner : memref<4x16xf32, strided<[32, 1], offset: 72>>)
  hivm.hir.store ins(%buf : memref<8x32xf32>) outs(%o : memref<8x32xf32>)
  return
}

// -----

// A 4x16 buffer read as 64 contiguous elements (memref.reinterpret_cast at offset 0, row-major strides): a reshape;
// the exp of the flat view is written back through the same cast into a second buffer, stored as 4x16.
// CHECK-LABEL: func.func @flat_cast
// CHECK: %flat = memref.reinterpret_cast %buf to offset: [0], sizes: [64], strides: [1] : memref<4x16xf32> to memref<64xf32>
// REMARK: remark: @flat_cast: split not expressible in MLIR, rolled back: memref.reinterpret_cast %flat
func.func @flat_cast(%a: memref<4x16xf32>, %o: memref<4x16xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<4x16xf32>
  hivm.hir.load ins(%a : memref<4x16xf32>) outs(%buf : memref<4x16xf32>)
  %flat = memref.reinterpret_cast %buf to offset: [0], sizes: [64], strides: [1] : memref<4x16xf32> to memref<64xf32>
  %res = memref.alloc() : memref<4x16xf32>
  %rflat = memref.reinterpret_cast %res to offset: [0], sizes: [64], strides: [1] : memref<4x16xf32> to memref<64xf32>
  hivm.hir.vexp ins(%flat : memref<64xf32>) outs(%rflat : memref<64xf32>)
  hivm.hir.store ins(%res : memref<4x16xf32>) outs(%o : memref<4x16xf32>)
  return
}

// -----

// memref.alloca is a buffer like memref.alloc: the function splits on rows, the alloca halved.
// CHECK-LABEL: func.func @alloca_buffer
// CHECK: scf.for %sb = %c0 to %c2 step %c1 {
// CHECK: %buf = memref.alloca() : memref<8x32xf32>
// CHECK: hivm.hir.store ins(%res : memref<8x32xf32>) {{.*}} {tiled_op}
// REMARK: remark: @alloca_buffer: split on axis 0
func.func @alloca_buffer(%a: memref<16x32xf32>, %o: memref<16x32xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloca() : memref<16x32xf32>
  hivm.hir.load ins(%a : memref<16x32xf32>) outs(%buf : memref<16x32xf32>)
  %res = memref.alloca() : memref<16x32xf32>
  hivm.hir.vabs ins(%buf : memref<16x32xf32>) outs(%res : memref<16x32xf32>)
  hivm.hir.store ins(%res : memref<16x32xf32>) outs(%o : memref<16x32xf32>)
  return
}

// -----

// A splat tensor constant (a fill) as the second operand of a multiply: the rows split, the splat halved with them.
// CHECK-LABEL: func.func @splat_constant
// CHECK: scf.for %sb = %c0 to %c2 step %c1 {
// CHECK: %k = arith.constant dense<2.500000e+00> : tensor<8x32xf32>
// CHECK: hivm.hir.vmul ins(%t, %k : tensor<8x32xf32>, tensor<8x32xf32>)
// CHECK: {tiled_op}
// REMARK: remark: @splat_constant: split on axis 0
func.func @splat_constant(%a: memref<16x32xf32>, %o: memref<16x32xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %k = arith.constant dense<2.5> : tensor<16x32xf32>
  %buf = memref.alloc() : memref<16x32xf32>
  hivm.hir.load ins(%a : memref<16x32xf32>) outs(%buf : memref<16x32xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x32xf32> to tensor<16x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %y = hivm.hir.vmul ins(%t, %k : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  hivm.hir.store ins(%y : tensor<16x32xf32>) outs(%o : memref<16x32xf32>)
  return
}

// -----

// A small table (four numbers) added to a loaded vector: a fill of the first number and three element writes.
// CHECK-LABEL: func.func @small_table
// CHECK: %k = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK: } {limit_sub_block_id0}
// REMARK: remark: @small_table: rolled back: the function has element writes
func.func @small_table(%a: memref<4xf32>, %o: memref<4xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %k = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %buf = memref.alloc() : memref<4xf32>
  hivm.hir.load ins(%a : memref<4xf32>) outs(%buf : memref<4xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<4xf32> to tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %y = hivm.hir.vadd ins(%t, %k : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  hivm.hir.store ins(%y : tensor<4xf32>) outs(%o : memref<4xf32>)
  return
}

// -----

// The blocks of a 64-vector, 16 at a time, the last one cut at %n: the offset is a loop's (at most 48), the size at
// most 16 (arith.minsi), so the window [off, off + 16) provably fits the vector.
// CHECK-LABEL: func.func @loop_tail
// CHECK: %blk = tensor.extract_slice %y[%off] [%sz] [1] : tensor<64xf32> to tensor<?xf32>
// CHECK: } {limit_sub_block_id0}
// REMARK: remark: @loop_tail: {{.*}}rolled back
#by16 = affine_map<(d0) -> (d0 * 16)>
func.func @loop_tail(%a: memref<64xf32>, %o: memref<64xf32>, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %buf = memref.alloc() : memref<64xf32>
  hivm.hir.load ins(%a : memref<64xf32>) outs(%buf : memref<64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<64xf32> to tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %y = hivm.hir.vabs ins(%t : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %off = affine.apply #by16(%i)
    %rem = arith.subi %n, %off : index
    %sz = arith.minsi %c16, %rem : index
    %blk = tensor.extract_slice %y[%off] [%sz] [1] : tensor<64xf32> to tensor<?xf32>
    %ow = memref.subview %o[%off] [%sz] [1] : memref<64xf32> to memref<?xf32, strided<[1], offset: ?>>
    hivm.hir.store ins(%blk : tensor<?xf32>) outs(%ow : memref<?xf32, strided<[1], offset: ?>>)
  }
  return
}

// -----

// A rank-3 slice (the right half of the last axis of a 2x4x32 tile): an N-D tile slice; the pages split 1 + 1.
// CHECK-LABEL: func.func @cube_slice
// CHECK: scf.for %sb = %c0 to %c2 step %c1 {
// CHECK: %s = tensor.extract_slice %t[0, 0, 16] [1, 4, 16] [1, 1, 1] : tensor<1x4x32xf32> to tensor<1x4x16xf32>
// CHECK: hivm.hir.store ins(%y : tensor<1x4x16xf32>) {{.*}} {tiled_op}
// REMARK: remark: @cube_slice: split on axis 0
func.func @cube_slice(%a: memref<2x4x32xf32>, %o: memref<2x4x16xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<2x4x32xf32>
  hivm.hir.load ins(%a : memref<2x4x32xf32>) outs(%buf : memref<2x4x32xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<2x4x32xf32> to tensor<2x4x32xf32>
  %s = tensor.extract_slice %t[0, 0, 16] [2, 4, 16] [1, 1, 1] : tensor<2x4x32xf32> to tensor<2x4x16xf32>
  %e = tensor.empty() : tensor<2x4x16xf32>
  %y = hivm.hir.vexp ins(%s : tensor<2x4x16xf32>) outs(%e : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  hivm.hir.store ins(%y : tensor<2x4x16xf32>) outs(%o : memref<2x4x16xf32>)
  return
}

// -----

// A rank-3 window of a GM tensor (pages 1..2 of four) loaded, and its page 1 read through a subview of the buffer
// (a rectangle of the buffer flattened to 2-D), abs'd and stored; the rows of each page split 2 + 2.
// CHECK-LABEL: func.func @cube_page
// CHECK: scf.for %sb = %c0 to %c2 step %c1 {
// CHECK: %buf = memref.alloc() : memref<2x2x32xf32>
// CHECK: %sv = memref.subview %buf[1, 0, 0] [1, 2, 32] [1, 1, 1] : memref<2x2x32xf32> to memref<1x2x32xf32, strided<[64, 32, 1], offset: 64>>
// CHECK: hivm.hir.store ins(%res : memref<1x2x32xf32>) outs(%{{.*}} : memref<1x2x32xf32, strided<[128, 32, 1], offset: ?>>) {tiled_op}
// REMARK: remark: @cube_page: split on axis 1
func.func @cube_page(%a: memref<4x4x32xf32>, %o: memref<1x4x32xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %win = memref.subview %a[1, 0, 0] [2, 4, 32] [1, 1, 1] : memref<4x4x32xf32> to memref<2x4x32xf32, strided<[128, 32, 1], offset: 128>>
  %buf = memref.alloc() : memref<2x4x32xf32>
  hivm.hir.load ins(%win : memref<2x4x32xf32, strided<[128, 32, 1], offset: 128>>) outs(%buf : memref<2x4x32xf32>)
  %sv = memref.subview %buf[1, 0, 0] [1, 4, 32] [1, 1, 1] : memref<2x4x32xf32> to memref<1x4x32xf32, strided<[128, 32, 1], offset: 128>>
  %res = memref.alloc() : memref<1x4x32xf32>
  hivm.hir.vabs ins(%sv : memref<1x4x32xf32, strided<[128, 32, 1], offset: 128>>) outs(%res : memref<1x4x32xf32>)
  hivm.hir.store ins(%res : memref<1x4x32xf32>) outs(%o : memref<1x4x32xf32>)
  return
}

// -----

// Every other column of rows 2..5, from column 1 (a static stride on the last axis): the rows sliced, the columns
// gathered at 1, 3, 5, ...
// CHECK-LABEL: func.func @odd_columns
// CHECK: %s = tensor.extract_slice %t[2, 1] [4, 16] [1, 2] : tensor<8x32xf32> to tensor<4x16xf32>
// REMARK: remark: @odd_columns: {{.*}}rolled back
func.func @odd_columns(%a: memref<8x32xf32>, %o: memref<4x16xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<8x32xf32>
  hivm.hir.load ins(%a : memref<8x32xf32>) outs(%buf : memref<8x32xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<8x32xf32> to tensor<8x32xf32>
  %s = tensor.extract_slice %t[2, 1] [4, 16] [1, 2] : tensor<8x32xf32> to tensor<4x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %y = hivm.hir.vexp ins(%s : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  hivm.hir.store ins(%y : tensor<4x16xf32>) outs(%o : memref<4x16xf32>)
  return
}

// -----

// Every third element of a vector from a run-time offset %k.
// CHECK-LABEL: func.func @every_third
// CHECK: %s = tensor.extract_slice %t[%k] [8] [3] : tensor<32xf32> to tensor<8xf32>
// REMARK: remark: @every_third: {{.*}}rolled back
func.func @every_third(%a: memref<32xf32>, %o: memref<8xf32>, %k: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<32xf32>
  hivm.hir.load ins(%a : memref<32xf32>) outs(%buf : memref<32xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<32xf32> to tensor<32xf32>
  %s = tensor.extract_slice %t[%k] [8] [3] : tensor<32xf32> to tensor<8xf32>
  hivm.hir.store ins(%s : tensor<8xf32>) outs(%o : memref<8xf32>)
  return
}

// -----

// The tensor form: a run-time-size GM window loaded into tensor.empty(%sz) (a tile of the bound 32), stored back.
// CHECK-LABEL: func.func @tensor_tail
// CHECK: %t = hivm.hir.load ins(%win : memref<?xf32, strided<[1], offset: ?>>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
// CHECK: } {limit_sub_block_id0}
// REMARK: remark: @tensor_tail: {{.*}}rolled back
func.func @tensor_tail(%a: memref<100xf32>, %o: memref<100xf32>, %off: index, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c32 = arith.constant 32 : index
  %rem = arith.subi %n, %off : index
  %sz = arith.minsi %rem, %c32 : index
  %win = memref.subview %a[%off] [%sz] [1] : memref<100xf32> to memref<?xf32, strided<[1], offset: ?>>
  %e = tensor.empty(%sz) : tensor<?xf32>
  %t = hivm.hir.load ins(%win : memref<?xf32, strided<[1], offset: ?>>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %ow = memref.subview %o[%off] [%sz] [1] : memref<100xf32> to memref<?xf32, strided<[1], offset: ?>>
  hivm.hir.store ins(%t : tensor<?xf32>) outs(%ow : memref<?xf32, strided<[1], offset: ?>>)
  return
}
