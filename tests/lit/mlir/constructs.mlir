// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s

// Row max, broadcast back, subtract: the reduction keeps axis 1 whole, so the rows split (8 + 8).
// CHECK-LABEL: func.func @row_normalise
// CHECK: scf.for
// CHECK: hivm.hir.vreduce <max> ins(%{{.*}} : tensor<8x64xf32>) outs(%{{.*}} : tensor<8x1xf32>) reduce_dims = [1] -> tensor<8x1xf32>
// CHECK: hivm.hir.vbrc ins(%{{.*}} : tensor<8x1xf32>) outs(%{{.*}} : tensor<8x64xf32>) broadcast_dims = [1] -> tensor<8x64xf32>
// CHECK: hivm.hir.vsub {{.*}} -> tensor<8x64xf32>
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<8x64xf32>) {{.*}} {tiled_op}
// CHECK: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
func.func @row_normalise(%src: memref<16x64xf32>, %dst: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e1 = tensor.empty() : tensor<16x1xf32>
  %m = hivm.hir.vreduce <max> ins(%t : tensor<16x64xf32>) outs(%e1 : tensor<16x1xf32>) reduce_dims = [1] -> tensor<16x1xf32>
  %e2 = tensor.empty() : tensor<16x64xf32>
  %b = hivm.hir.vbrc ins(%m : tensor<16x1xf32>) outs(%e2 : tensor<16x64xf32>) broadcast_dims = [1] -> tensor<16x64xf32>
  %e3 = tensor.empty() : tensor<16x64xf32>
  %d = hivm.hir.vsub ins(%t, %b : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e3 : tensor<16x64xf32>) -> tensor<16x64xf32>
  hivm.hir.store ins(%d : tensor<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}

// -----

// A column sum (reduces axis 0) written [1, 64]: only the columns can split, 32 + 32.
// CHECK: #map = affine_map<(d0) -> (d0 * 32)>
// CHECK-LABEL: func.func @column_sum
// CHECK: memref.subview %{{.*}}[0, %{{.*}}] [16, 32] [1, 1]
// CHECK: hivm.hir.vreduce <sum> ins(%{{.*}} : tensor<16x32xf32>) outs(%{{.*}} : tensor<1x32xf32>)
// CHECK: memref.subview %{{.*}}[0, %{{.*}}] [1, 32] [1, 1]
// CHECK: hivm.hir.store {{.*}} {tiled_op}
func.func @column_sum(%src: memref<16x64xf32>, %dst: memref<1x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e = tensor.empty() : tensor<1x64xf32>
  %s = hivm.hir.vreduce <sum> ins(%t : tensor<16x64xf32>) outs(%e : tensor<1x64xf32>) reduce_dims = [0] -> tensor<1x64xf32>
  hivm.hir.store ins(%s : tensor<1x64xf32>) outs(%dst : memref<1x64xf32>)
  return
}

// -----

// A custom op with a reduction iterator on d1: split on d0 (the parallel one), marked tiled_op.
// CHECK-LABEL: func.func @custom_row_reduce
// CHECK: hivm.hir.custom {{.*}}tiled_op{{.*}} "row_sum" ins(%{{.*}} : tensor<8x64xf32>) outs(%{{.*}} : tensor<8x1xf32>)
// CHECK: hivm.hir.store {{.*}} {tiled_op}
func.func @custom_row_reduce(%src: memref<16x64xf32>, %dst: memref<16x1xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x1xf32>
  %r = hivm.hir.custom {no_side_effect, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = [#hivm.iterator_type<parallel>, #hivm.iterator_type<reduction>]} "row_sum" ins(%t : tensor<16x64xf32>) outs(%e : tensor<16x1xf32>) -> tensor<16x1xf32>
  hivm.hir.store ins(%r : tensor<16x1xf32>) outs(%dst : memref<16x1xf32>)
  return
}

// -----

// A custom op without no_side_effect cannot be duplicated: rolled back, it and the store run on sub-block 0.
// CHECK-LABEL: func.func @custom_with_effects
// CHECK-NOT: map_for_to_forall
// CHECK: scf.if
// CHECK: hivm.hir.custom
// CHECK: scf.yield
// CHECK: } else {
// CHECK: } {limit_sub_block_id0}
// CHECK: scf.if
// CHECK: hivm.hir.store
// CHECK: } {limit_sub_block_id0}
func.func @custom_with_effects(%src: memref<16x64xf32>, %dst: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %r = hivm.hir.custom {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [#hivm.iterator_type<parallel>, #hivm.iterator_type<parallel>]} "touch" ins(%t : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  hivm.hir.store ins(%r : tensor<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}

// -----

// A loop over row blocks carrying nothing: each iteration's 16x64 block splits, here on its columns (32 + 32).
// CHECK-LABEL: func.func @row_blocks
// CHECK: scf.for %[[SB:.*]] = %c0 to %c2 step %c1 {
// CHECK: scf.for
// CHECK: memref.subview %{{.*}}[0, %{{.*}}] [16, 32] [1, 1]
// CHECK: hivm.hir.vrelu {{.*}} -> tensor<16x32xf32>
// CHECK: hivm.hir.store {{.*}} {tiled_op}
// CHECK: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
func.func @row_blocks(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c16 {
    %in = memref.subview %src[%i, 0] [16, 64] [1, 1] : memref<64x64xf32> to memref<16x64xf32, strided<[64, 1], offset: ?>>
    %out = memref.subview %dst[%i, 0] [16, 64] [1, 1] : memref<64x64xf32> to memref<16x64xf32, strided<[64, 1], offset: ?>>
    %buf = memref.alloc() : memref<16x64xf32>
    hivm.hir.load ins(%in : memref<16x64xf32, strided<[64, 1], offset: ?>>) outs(%buf : memref<16x64xf32>)
    %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf32> to tensor<16x64xf32>
    %e = tensor.empty() : tensor<16x64xf32>
    %r = hivm.hir.vrelu ins(%t : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
    hivm.hir.store ins(%r : tensor<16x64xf32>) outs(%out : memref<16x64xf32, strided<[64, 1], offset: ?>>)
  }
  return
}

// -----

// An if choosing between two computed tiles: both branches yield halves.
// CHECK-LABEL: func.func @choose
// CHECK: scf.if %{{.*}} -> (tensor<8x64xf32>)
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<8x64xf32>) {{.*}} {tiled_op}
func.func @choose(%src: memref<16x64xf32>, %dst: memref<16x64xf32>, %flag: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %zero = arith.constant 0 : i32
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %c = arith.cmpi sgt, %flag, %zero : i32
  %r = scf.if %c -> (tensor<16x64xf32>) {
    %x = hivm.hir.vexp ins(%t : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
    scf.yield %x : tensor<16x64xf32>
  } else {
    %y = hivm.hir.vabs ins(%t : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
    scf.yield %y : tensor<16x64xf32>
  }
  hivm.hir.store ins(%r : tensor<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}

// -----

// A 1x1 flag store beside a splittable block: the block splits, the flag store stays whole on sub-block 0.
// CHECK-LABEL: func.func @flag_beside
// CHECK: scf.for
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<8x64xf32>) {{.*}} {tiled_op}
// CHECK: scf.if
// CHECK-NEXT: hivm.hir.store ins(%{{.*}} : tensor<1x1xf32>)
// CHECK: } {limit_sub_block_id0}
// CHECK: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
func.func @flag_beside(%src: memref<16x64xf32>, %dst: memref<16x64xf32>, %flagsrc: memref<1x1xf32>, %flag: memref<1x1xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %r = hivm.hir.vexp ins(%t : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  hivm.hir.store ins(%r : tensor<16x64xf32>) outs(%dst : memref<16x64xf32>)
  %fb = memref.alloc() : memref<1x1xf32>
  hivm.hir.load ins(%flagsrc : memref<1x1xf32>) outs(%fb : memref<1x1xf32>)
  %ft = bufferization.to_tensor %fb restrict writable : memref<1x1xf32> to tensor<1x1xf32>
  hivm.hir.store ins(%ft : tensor<1x1xf32>) outs(%flag : memref<1x1xf32>)
  return
}

// -----

// A while loop carrying a counter and a tile: the tile is halved through the loop (iter args, results).
// CHECK-LABEL: func.func @doubling
// CHECK: scf.for
// CHECK: scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (index, tensor<8x64xf32>) -> (index, tensor<8x64xf32>)
// CHECK: hivm.hir.vadd {{.*}} -> tensor<8x64xf32>
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<8x64xf32>) {{.*}} {tiled_op}
// CHECK: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
func.func @doubling(%src: memref<16x64xf32>, %dst: memref<16x64xf32>, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %r:2 = scf.while (%i = %c0, %acc = %t) : (index, tensor<16x64xf32>) -> (index, tensor<16x64xf32>) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %i, %acc : index, tensor<16x64xf32>
  } do {
  ^bb0(%i2: index, %acc2: tensor<16x64xf32>):
    %twice = hivm.hir.vadd ins(%acc2, %acc2 : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
    %next = arith.addi %i2, %c1 : index
    scf.yield %next, %twice : index, tensor<16x64xf32>
  }
  hivm.hir.store ins(%r#1 : tensor<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}

// -----

// A slice covering its source's rows (a column window of a 16x128 tile): the rows split, the window keeps its
// offset and halves its rows.
// CHECK-LABEL: func.func @column_window
// CHECK: tensor.extract_slice %{{.*}}[0, 64] [8, 64] [1, 1] : tensor<8x128xf32> to tensor<8x64xf32>
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<8x64xf32>) {{.*}} {tiled_op}
func.func @column_window(%src: memref<16x128xf32>, %dst: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x128xf32>
  hivm.hir.load ins(%src : memref<16x128xf32>) outs(%buf : memref<16x128xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x128xf32> to tensor<16x128xf32>
  %e = tensor.empty() : tensor<16x128xf32>
  %x = hivm.hir.vexp ins(%t : tensor<16x128xf32>) outs(%e : tensor<16x128xf32>) -> tensor<16x128xf32>
  %w = tensor.extract_slice %x[0, 64] [16, 64] [1, 1] : tensor<16x128xf32> to tensor<16x64xf32>
  hivm.hir.store ins(%w : tensor<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}

// -----

// Triton-style kernel: dynamic GM arguments read through reinterpret_cast views at a block offset.
// CHECK-LABEL: func.func @block_views
// CHECK: scf.for
// CHECK: memref.subview %{{.*}}[%{{.*}}] [32] [1]
// CHECK: hivm.hir.vmul {{.*}} -> tensor<32xf32>
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<32xf32>) {{.*}} {tiled_op}
func.func @block_views(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>) attributes {hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %bid = hivm.hir.get_block_idx -> i64
  %b = arith.index_cast %bid : i64 to index
  %c64 = arith.constant 64 : index
  %off = arith.muli %b, %c64 : index
  %vx = memref.reinterpret_cast %x to offset: [%off], sizes: [64], strides: [1] : memref<?xf32> to memref<64xf32, strided<[1], offset: ?>>
  %vy = memref.reinterpret_cast %y to offset: [%off], sizes: [64], strides: [1] : memref<?xf32> to memref<64xf32, strided<[1], offset: ?>>
  %vo = memref.reinterpret_cast %out to offset: [%off], sizes: [64], strides: [1] : memref<?xf32> to memref<64xf32, strided<[1], offset: ?>>
  %bx = memref.alloc() : memref<64xf32>
  hivm.hir.load ins(%vx : memref<64xf32, strided<[1], offset: ?>>) outs(%bx : memref<64xf32>)
  %by = memref.alloc() : memref<64xf32>
  hivm.hir.load ins(%vy : memref<64xf32, strided<[1], offset: ?>>) outs(%by : memref<64xf32>)
  %tx = bufferization.to_tensor %bx restrict writable : memref<64xf32> to tensor<64xf32>
  %ty = bufferization.to_tensor %by restrict writable : memref<64xf32> to tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %p = hivm.hir.vmul ins(%tx, %ty : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  hivm.hir.store ins(%p : tensor<64xf32>) outs(%vo : memref<64xf32, strided<[1], offset: ?>>)
  return
}

// -----

// Tensor-form loads (outs a tensor.empty, a result), a scalar broadcast and an implicit row broadcast
// (broadcast = [1]): all halved on rows.
// CHECK-LABEL: func.func @tensor_form
// CHECK: %[[IN:.*]] = memref.subview %{{.*}}[%{{.*}}, 0] [8, 64] [1, 1]
// CHECK: hivm.hir.load ins(%[[IN]] : {{.*}}) outs(%{{.*}} : tensor<8x64xf32>) -> tensor<8x64xf32>
// CHECK: hivm.hir.vbrc ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x64xf32>) -> tensor<8x64xf32>
// CHECK: hivm.hir.vmul ins(%{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<8x1xf32>) {{.*}} broadcast = [1] -> tensor<8x64xf32>
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<8x64xf32>) {{.*}} {tiled_op}
func.func @tensor_form(%src: memref<16x64xf32>, %col: memref<16x1xf32>, %dst: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %t = hivm.hir.load ins(%src : memref<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %ec = tensor.empty() : tensor<16x1xf32>
  %c = hivm.hir.load ins(%col : memref<16x1xf32>) outs(%ec : tensor<16x1xf32>) -> tensor<16x1xf32>
  %e2 = tensor.empty() : tensor<16x64xf32>
  %ones = hivm.hir.vbrc ins(%one : f32) outs(%e2 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %s = hivm.hir.vadd ins(%t, %ones : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e2 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m = hivm.hir.vmul ins(%s, %c : tensor<16x64xf32>, tensor<16x1xf32>) outs(%e2 : tensor<16x64xf32>) broadcast = [1] -> tensor<16x64xf32>
  hivm.hir.store ins(%m : tensor<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}

// -----

// arith.select of scalars (a scale chosen by a flag) lowers like an scf.if with one scalar result: the block
// splits, the select stays as written.
// CHECK-LABEL: func.func @select_scale
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: hivm.hir.vmul ins(%{{.*}}, %{{.*}} : tensor<8x64xf32>, f32)
// CHECK: hivm.hir.store ins(%{{.*}} : tensor<8x64xf32>) {{.*}} {tiled_op}
func.func @select_scale(%src: memref<16x64xf32>, %dst: memref<16x64xf32>, %flag: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %zero = arith.constant 0 : i32
  %two = arith.constant 2.0 : f32
  %half = arith.constant 0.5 : f32
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %c = arith.cmpi sgt, %flag, %zero : i32
  %s = arith.select %c, %two, %half : f32
  %r = hivm.hir.vmul ins(%t, %s : tensor<16x64xf32>, f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  hivm.hir.store ins(%r : tensor<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}
