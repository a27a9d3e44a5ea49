// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s
// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file --remarks -o %t 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: tilefold mlir-opt %s --hivm-bind-sub-block='enable-tile=false' -split-input-file | filecheck %s --check-prefix=NOTILE

// Tiles written into windows of larger tiles (tensor.insert_slice), buffers written inside loops and ifs, byte
// buffers cut into views, windows of local buffers, and scope.scope regions: each is lowered, split like the rest of
// the function, and printed back with its halved types.

// An exp'd block inserted into the right half of a wider tile, read back and stored: the insert covers the rows, so
// the rows split 8 + 8 and the insert keeps its column offset with halved sizes.
// CHECK-LABEL: func.func @block_into_wider
// CHECK: scf.for %[[SB:.*]] = %c0 to %c2 step %c1 {
// CHECK: %y = hivm.hir.vexp ins(%t : tensor<8x64xf32>)
// CHECK: %z = tensor.empty() : tensor<8x128xf32>
// CHECK-NEXT: %s = tensor.insert_slice %y into %z[0, 64] [8, 64] [1, 1] : tensor<8x64xf32> into tensor<8x128xf32>
// CHECK-NEXT: %w = tensor.extract_slice %s[0, 64] [8, 64] [1, 1] : tensor<8x128xf32> to tensor<8x64xf32>
// CHECK: hivm.hir.store ins(%w : tensor<8x64xf32>) outs(%{{.*}} : memref<8x64xf32, strided<[64, 1], offset: ?>>) {tiled_op}
// CHECK: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
// REMARK: remark: @block_into_wider: split on axis 0
// NOTILE-LABEL: func.func @block_into_wider
// NOTILE: tensor.insert_slice %y into %z[0, 64] [16, 64] [1, 1] : tensor<16x64xf32> into tensor<16x128xf32>
// NOTILE: scf.if %{{.*}} {
// NOTILE-NEXT: hivm.hir.store
// NOTILE: } {limit_sub_block_id0}
func.func @block_into_wider(%a: memref<16x64xf32>, %o: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%a : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf32> to tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %y = hivm.hir.vexp ins(%t : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %z = tensor.empty() : tensor<16x128xf32>
  %s = tensor.insert_slice %y into %z[0, 64] [16, 64] [1, 1] : tensor<16x64xf32> into tensor<16x128xf32>
  %w = tensor.extract_slice %s[0, 64] [16, 64] [1, 1] : tensor<16x128xf32> to tensor<16x64xf32>
  hivm.hir.store ins(%w : tensor<16x64xf32>) outs(%o : memref<16x64xf32>)
  return
}

// -----

// Rows read one at a time (a rank-reducing slice [1, 64] -> tensor<64>) and inserted back at the loop's row: a row
// does not cover the rows, so the columns split 32 + 32; the rank-reduced row keeps its unit size.
// CHECK-LABEL: func.func @rows_one_by_one
// CHECK: %r = scf.for %i = {{.*}} iter_args(%acc = %z) -> (tensor<4x32xf32>) {
// CHECK-NEXT: %row = tensor.extract_slice %t[%i, 0] [1, 32] [1, 1] : tensor<4x32xf32> to tensor<32xf32>
// CHECK: %x = hivm.hir.vabs ins(%row : tensor<32xf32>)
// CHECK-NEXT: %n = tensor.insert_slice %x into %acc[%i, 0] [1, 32] [1, 1] : tensor<32xf32> into tensor<4x32xf32>
// CHECK-NEXT: scf.yield %n : tensor<4x32xf32>
// CHECK: hivm.hir.store ins(%r : tensor<4x32xf32>) {{.*}} {tiled_op}
// REMARK: remark: @rows_one_by_one: split on axis 1
func.func @rows_one_by_one(%a: memref<4x64xf32>, %o: memref<4x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %buf = memref.alloc() : memref<4x64xf32>
  hivm.hir.load ins(%a : memref<4x64xf32>) outs(%buf : memref<4x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<4x64xf32> to tensor<4x64xf32>
  %z = tensor.empty() : tensor<4x64xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %z) -> (tensor<4x64xf32>) {
    %row = tensor.extract_slice %t[%i, 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<64xf32>
    %e = tensor.empty() : tensor<64xf32>
    %x = hivm.hir.vabs ins(%row : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    %n = tensor.insert_slice %x into %acc[%i, 0] [1, 64] [1, 1] : tensor<64xf32> into tensor<4x64xf32>
    scf.yield %n : tensor<4x64xf32>
  }
  hivm.hir.store ins(%r : tensor<4x64xf32>) outs(%o : memref<4x64xf32>)
  return
}

// -----

// A 4x32 patch inserted at a run-time row and column 32 of an 8x64 tile: it covers neither axis, so no split keeps
// the insert as it is; the rows split and each sub-block inserts only the rows of the patch inside its half (the
// stored window's clip arithmetic on %sb and %i: start in the half, count, first row of the patch; a count of 0
// inserts nothing), the patch itself loaded whole on both.
// CHECK-LABEL: func.func @patch_in_corner
// CHECK: scf.for %sb =
// CHECK: %t = bufferization.to_tensor %buf restrict writable : memref<4x32xf32> to tensor<4x32xf32>
// CHECK: %f = hivm.hir.vbrc ins(%one : f32) outs(%{{.*}} : tensor<4x64xf32>) -> tensor<4x64xf32>
// CHECK: %[[LO0:.*]] = affine.max #{{map[0-9]*}}(%sb)[%i]
// CHECK-NEXT: %[[LO:.*]] = affine.min #{{map[0-9]*}}(%[[LO0]])
// CHECK-NEXT: %[[HI0:.*]] = affine.max #{{map[0-9]*}}(%sb)[%i]
// CHECK-NEXT: %[[HI:.*]] = affine.min #{{map[0-9]*}}(%[[HI0]])
// CHECK-NEXT: %[[COUNT:.*]] = affine.apply #{{map[0-9]*}}(%[[HI]], %[[LO]])
// CHECK-NEXT: %[[SH0:.*]] = affine.max #{{map[0-9]*}}(%sb)[%i]
// CHECK-NEXT: %[[SH:.*]] = affine.min #{{map[0-9]*}}(%[[SH0]])
// CHECK-NEXT: %[[PART:.*]] = tensor.extract_slice %t[%[[SH]], 0] [%[[COUNT]], 32] [1, 1] : tensor<4x32xf32> to tensor<?x32xf32>
// CHECK-NEXT: %s = tensor.insert_slice %[[PART]] into %f[%[[LO]], 32] [%[[COUNT]], 32] [1, 1] : tensor<?x32xf32> into tensor<4x64xf32>
// CHECK: hivm.hir.store ins(%s : tensor<4x64xf32>) outs(%{{.*}} : memref<4x64xf32, strided<[64, 1], offset: ?>>) {tiled_op}
// CHECK-NOT: limit_sub_block_id0
// REMARK: remark: @patch_in_corner: split on axis 0
func.func @patch_in_corner(%a: memref<4x32xf32>, %o: memref<8x64xf32>, %i: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %one = arith.constant 1.0 : f32
  %buf = memref.alloc() : memref<4x32xf32>
  hivm.hir.load ins(%a : memref<4x32xf32>) outs(%buf : memref<4x32xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<4x32xf32> to tensor<4x32xf32>
  %z = tensor.empty() : tensor<8x64xf32>
  %f = hivm.hir.vbrc ins(%one : f32) outs(%z : tensor<8x64xf32>) -> tensor<8x64xf32>
  %s = tensor.insert_slice %t into %f[%i, 32] [4, 32] [1, 1] : tensor<4x32xf32> into tensor<8x64xf32>
  hivm.hir.store ins(%s : tensor<8x64xf32>) outs(%o : memref<8x64xf32>)
  return
}

// -----

// A buffer defined before a loop and an if, written in place inside them (memref form, no results): it is carried
// through both as a value, so the whole function splits and the buffers print halved inside the loop and the if.
// CHECK-LABEL: func.func @accumulate_in_place
// CHECK: %acc = memref.alloc() : memref<4x64xf32>
// CHECK: hivm.hir.vbrc ins(%zero : f32) outs(%acc : memref<4x64xf32>)
// CHECK: scf.for %i = {{.*}} {
// CHECK-NEXT: hivm.hir.vadd ins(%acc, %buf : memref<4x64xf32>, memref<4x64xf32>) outs(%acc : memref<4x64xf32>)
// CHECK-NEXT: }
// CHECK: scf.if %flag {
// CHECK-NEXT: hivm.hir.vexp ins(%acc : memref<4x64xf32>) outs(%acc : memref<4x64xf32>)
// CHECK-NEXT: }
// CHECK: hivm.hir.store ins(%acc : memref<4x64xf32>) {{.*}} {tiled_op}
// REMARK: remark: @accumulate_in_place: split on axis 0
func.func @accumulate_in_place(%a: memref<8x64xf32>, %o: memref<8x64xf32>, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<8x64xf32>
  %buf = memref.alloc() : memref<8x64xf32>
  hivm.hir.load ins(%a : memref<8x64xf32>) outs(%buf : memref<8x64xf32>)
  hivm.hir.vbrc ins(%zero : f32) outs(%acc : memref<8x64xf32>)
  scf.for %i = %c0 to %n step %c1 {
    hivm.hir.vadd ins(%acc, %buf : memref<8x64xf32>, memref<8x64xf32>) outs(%acc : memref<8x64xf32>)
  }
  %flag = arith.cmpi sgt, %n, %c1 : index
  scf.if %flag {
    hivm.hir.vexp ins(%acc : memref<8x64xf32>) outs(%acc : memref<8x64xf32>)
  }
  hivm.hir.store ins(%acc : memref<8x64xf32>) outs(%o : memref<8x64xf32>)
  return
}

// -----

// The same in the body of a while loop.
// CHECK-LABEL: func.func @square_while
// CHECK: %buf = memref.alloc() : memref<4x64xf32>
// CHECK: scf.while
// CHECK: hivm.hir.vmul ins(%buf, %buf : memref<4x64xf32>, memref<4x64xf32>) outs(%buf : memref<4x64xf32>)
// CHECK: hivm.hir.store ins(%buf : memref<4x64xf32>) {{.*}} {tiled_op}
// REMARK: remark: @square_while: split on axis 0
func.func @square_while(%a: memref<8x64xf32>, %o: memref<8x64xf32>, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloc() : memref<8x64xf32>
  hivm.hir.load ins(%a : memref<8x64xf32>) outs(%buf : memref<8x64xf32>)
  %r = scf.while (%i = %c0) : (index) -> index {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    hivm.hir.vmul ins(%buf, %buf : memref<8x64xf32>, memref<8x64xf32>) outs(%buf : memref<8x64xf32>)
    %nx = arith.addi %j, %c1 : index
    scf.yield %nx : index
  }
  hivm.hir.store ins(%buf : memref<8x64xf32>) outs(%o : memref<8x64xf32>)
  return
}

// -----

// One byte buffer cut into two disjoint f16 views: each view is a buffer of its own; the views print halved, the
// byte buffer and the byte shifts stay.
// CHECK-LABEL: func.func @two_views
// CHECK: %raw = memref.alloc() : memref<4096xi8>
// CHECK-NEXT: %x = memref.view %raw[%{{.*}}][] : memref<4096xi8> to memref<8x64xf16>
// CHECK-NEXT: %y = memref.view %raw[%c2048][] : memref<4096xi8> to memref<8x64xf16>
// CHECK: hivm.hir.vexp ins(%x : memref<8x64xf16>) outs(%y : memref<8x64xf16>)
// CHECK: {tiled_op}
// REMARK: remark: @two_views: split on axis 0
func.func @two_views(%a: memref<16x64xf16>, %o: memref<16x64xf16>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c2048 = arith.constant 2048 : index
  %raw = memref.alloc() : memref<4096xi8>
  %x = memref.view %raw[%c0][] : memref<4096xi8> to memref<16x64xf16>
  %y = memref.view %raw[%c2048][] : memref<4096xi8> to memref<16x64xf16>
  hivm.hir.load ins(%a : memref<16x64xf16>) outs(%x : memref<16x64xf16>)
  hivm.hir.vexp ins(%x : memref<16x64xf16>) outs(%y : memref<16x64xf16>)
  hivm.hir.store ins(%y : memref<16x64xf16>) outs(%o : memref<16x64xf16>)
  return
}

// -----

// Views whose bytes overlap could alias: not lowered, rolled back with the location of the second view.
// CHECK-LABEL: func.func @overlapping_views
// CHECK: } {limit_sub_block_id0}
// REMARK: remark: @overlapping_views: not lowered, rolled back: {{.*}}windows_and_buffers.mlir:{{[0-9]+}}:3
// REMARK-NEXT: %y = memref.view %raw[%c1024][]
// REMARK: error: memref.view: the view's bytes [1024, 3072) overlap another view's [0, 2048) of the buffer
func.func @overlapping_views(%a: memref<16x64xf16>, %o: memref<16x64xf16>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %raw = memref.alloc() : memref<4096xi8>
  %x = memref.view %raw[%c0][] : memref<4096xi8> to memref<16x64xf16>
  %y = memref.view %raw[%c1024][] : memref<4096xi8> to memref<16x64xf16>
  hivm.hir.load ins(%a : memref<16x64xf16>) outs(%x : memref<16x64xf16>)
  hivm.hir.vexp ins(%x : memref<16x64xf16>) outs(%y : memref<16x64xf16>)
  hivm.hir.store ins(%y : memref<16x64xf16>) outs(%o : memref<16x64xf16>)
  return
}

// -----

// A load into, and an op on, the right half of a local buffer (memref.subview of an alloc): reads slice the
// buffer, writes go into the window. The window covers the rows, so the rows split and the window keeps its layout.
// CHECK-LABEL: func.func @right_half_of_buffer
// CHECK: %buf = memref.alloc() : memref<8x64xf32>
// CHECK: %w = memref.subview %buf[0, 32] [8, 32] [1, 1] : memref<8x64xf32> to memref<8x32xf32, strided<[64, 1], offset: 32>>
// CHECK: hivm.hir.load ins(%{{.*}} : memref<8x32xf32, strided<[32, 1], offset: ?>>) outs(%w : memref<8x32xf32, strided<[64, 1], offset: 32>>)
// CHECK: hivm.hir.store ins(%buf : memref<8x64xf32>) {{.*}} {tiled_op}
// REMARK: remark: @right_half_of_buffer: split on axis 0
func.func @right_half_of_buffer(%a: memref<16x32xf32>, %o: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.vbrc ins(%zero : f32) outs(%buf : memref<16x64xf32>)
  %w = memref.subview %buf[0, 32] [16, 32] [1, 1] : memref<16x64xf32> to memref<16x32xf32, strided<[64, 1], offset: 32>>
  hivm.hir.load ins(%a : memref<16x32xf32>) outs(%w : memref<16x32xf32, strided<[64, 1], offset: 32>>)
  hivm.hir.vabs ins(%w : memref<16x32xf32, strided<[64, 1], offset: 32>>) outs(%w : memref<16x32xf32, strided<[64, 1], offset: 32>>)
  hivm.hir.store ins(%buf : memref<16x64xf32>) outs(%o : memref<16x64xf32>)
  return
}

// -----

// A scope.scope region returning a tile (exp of the left half written into the right half, at an offset computed
// by affine.apply): its body is lowered in place; after the split the scope's result type is halved with it.
#blk = affine_map<(d0) -> (d0 * 32)>
// CHECK-LABEL: func.func @scoped_halves
// CHECK: %r = scope.scope : () -> tensor<4x64xf32> {
// CHECK: %n = tensor.insert_slice %x into %t[0, %off] [4, 32] [1, 1] : tensor<4x32xf32> into tensor<4x64xf32>
// CHECK-NEXT: scope.return %n : tensor<4x64xf32>
// CHECK-NEXT: } {hivm.tcore_type = #hivm.tcore_type<VECTOR>}
// CHECK: hivm.hir.store ins(%r : tensor<4x64xf32>) {{.*}} {tiled_op}
// REMARK: remark: @scoped_halves: split on axis 0
func.func @scoped_halves(%a: memref<8x64xf32>, %o: memref<8x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c1 = arith.constant 1 : index
  %buf = memref.alloc() : memref<8x64xf32>
  hivm.hir.load ins(%a : memref<8x64xf32>) outs(%buf : memref<8x64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<8x64xf32> to tensor<8x64xf32>
  %r = scope.scope : () -> tensor<8x64xf32> {
    %lo = tensor.extract_slice %t[0, 0] [8, 32] [1, 1] : tensor<8x64xf32> to tensor<8x32xf32>
    %e = tensor.empty() : tensor<8x32xf32>
    %x = hivm.hir.vexp ins(%lo : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
    %off = affine.apply #blk(%c1)
    %n = tensor.insert_slice %x into %t[0, %off] [8, 32] [1, 1] : tensor<8x32xf32> into tensor<8x64xf32>
    scope.return %n : tensor<8x64xf32>
  } {hivm.tcore_type = #hivm.tcore_type<VECTOR>}
  hivm.hir.store ins(%r : tensor<8x64xf32>) outs(%o : memref<8x64xf32>)
  return
}

// -----

// A load of 30 columns into a 32-column buffer, padded with -1 (one column on the left, one on the right): the rows
// split, each half loading its rows of the window with the same padding.
// CHECK-LABEL: func.func @padded_rows
// CHECK: %buf = memref.alloc() : memref<8x32xf32>
// CHECK-NEXT: %[[W:.*]] = memref.subview %a[%{{.*}}, 0] [8, 30] [1, 1] : memref<16x30xf32> to memref<8x30xf32, strided<[30, 1], offset: ?>>
// CHECK-NEXT: hivm.hir.load ins(%[[W]] : memref<8x30xf32, strided<[30, 1], offset: ?>>) outs(%buf : memref<8x32xf32>) pad_mode = <PadValue> pad_value = %pv : f32 left_padding_num = %{{.*}} : index
// CHECK: {tiled_op}
// REMARK: remark: @padded_rows: split on axis 0
func.func @padded_rows(%a: memref<16x30xf32>, %o: memref<16x32xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %pv = arith.constant -1.0 : f32
  %c1 = arith.constant 1 : index
  %buf = memref.alloc() : memref<16x32xf32>
  hivm.hir.load ins(%a : memref<16x30xf32>) outs(%buf : memref<16x32xf32>) pad_mode = <PadValue> pad_value = %pv : f32 left_padding_num = %c1 : index
  hivm.hir.vmul ins(%buf, %buf : memref<16x32xf32>, memref<16x32xf32>) outs(%buf : memref<16x32xf32>)
  hivm.hir.store ins(%buf : memref<16x32xf32>) outs(%o : memref<16x32xf32>)
  return
}

// -----

// PadNull leaves the padding undefined: not lowered, rolled back at the load.
// CHECK-LABEL: func.func @undefined_padding
// CHECK: } {limit_sub_block_id0}
// REMARK: remark: @undefined_padding: not lowered, rolled back: {{.*}}windows_and_buffers.mlir:{{[0-9]+}}:3
// REMARK: error: hivm.hir.load: a load whose window and buffer shapes differ needs pad_mode = <PadValue> and a pad_value
func.func @undefined_padding(%a: memref<16x30xf32>, %o: memref<16x32xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x32xf32>
  hivm.hir.load ins(%a : memref<16x30xf32>) outs(%buf : memref<16x32xf32>) pad_mode = <PadNull>
  hivm.hir.store ins(%buf : memref<16x32xf32>) outs(%o : memref<16x32xf32>)
  return
}

// -----

// A window of a local buffer that is only read: it is halved with its buffer (same offsets, halved rows).
// CHECK-LABEL: func.func @read_window
// CHECK: %w = memref.subview %buf[0, 32] [8, 32] [1, 1] : memref<8x64xf32> to memref<8x32xf32, strided<[64, 1], offset: 32>>
// CHECK: hivm.hir.vexp ins(%w : memref<8x32xf32, strided<[64, 1], offset: 32>>) outs(%r : memref<8x32xf32>)
// REMARK: remark: @read_window: split on axis 0
func.func @read_window(%a: memref<16x64xf32>, %o: memref<16x32xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%a : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  %w = memref.subview %buf[0, 32] [16, 32] [1, 1] : memref<16x64xf32> to memref<16x32xf32, strided<[64, 1], offset: 32>>
  %r = memref.alloc() : memref<16x32xf32>
  hivm.hir.vexp ins(%w : memref<16x32xf32, strided<[64, 1], offset: 32>>) outs(%r : memref<16x32xf32>)
  hivm.hir.store ins(%r : memref<16x32xf32>) outs(%o : memref<16x32xf32>)
  return
}

// -----

// Loop bounds and offsets from arith.ceildivsi and affine.min (ceil(5 / 4) = 2 blocks of 4 rows, the last one moved
// back to end at row 5): scalar expressions of the loop; the 64 columns split.
// CHECK-LABEL: func.func @blocks_by_ceildiv
// CHECK: %nb = arith.ceildivsi %c5, %c4 : index
// CHECK: scf.for %b = %{{.*}} to %nb step %{{.*}} {
// CHECK-NEXT: %row = affine.min #{{map[0-9]*}}(%b)[%c5]
// CHECK: hivm.hir.vabs ins(%buf : memref<4x32xf32>) outs(%buf : memref<4x32xf32>)
// CHECK: {tiled_op}
// REMARK: remark: @blocks_by_ceildiv: split on axis 1
#tail = affine_map<(d0)[s0] -> (d0 * 4, s0 - 4)>
func.func @blocks_by_ceildiv(%a: memref<16x64xf32>, %o: memref<16x64xf32>, %n: index) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %nb = arith.ceildivsi %c5, %c4 : index
  scf.for %b = %c0 to %nb step %c1 {
    %row = affine.min #tail(%b)[%c5]
    %src = memref.subview %a[%row, 0] [4, 64] [1, 1] : memref<16x64xf32> to memref<4x64xf32, strided<[64, 1], offset: ?>>
    %buf = memref.alloc() : memref<4x64xf32>
    hivm.hir.load ins(%src : memref<4x64xf32, strided<[64, 1], offset: ?>>) outs(%buf : memref<4x64xf32>)
    hivm.hir.vabs ins(%buf : memref<4x64xf32>) outs(%buf : memref<4x64xf32>)
    %dst = memref.subview %o[%row, 0] [4, 64] [1, 1] : memref<16x64xf32> to memref<4x64xf32, strided<[64, 1], offset: ?>>
    hivm.hir.store ins(%buf : memref<4x64xf32>) outs(%dst : memref<4x64xf32, strided<[64, 1], offset: ?>>)
  }
  return
}

// -----

// Rows loaded one by one into rank-reduced windows %buf[%i, 0] [1, 64] of a buffer defined before the loop: the
// buffer is carried through the loop; a row covers the columns, so the columns split, each window halved with its
// buffer (offset still %i, layout of the halved buffer).
// CHECK-LABEL: func.func @rows_in_loop
// CHECK: %buf = memref.alloc() : memref<4x32xf32>
// CHECK: %row = memref.subview %buf[%i, 0] [1, 32] [1, 1] : memref<4x32xf32> to memref<32xf32, strided<[1], offset: ?>>
// CHECK: hivm.hir.load ins(%{{.*}} : memref<32xf32, strided<[1], offset: ?>>) outs(%row : memref<32xf32, strided<[1], offset: ?>>)
// CHECK: hivm.hir.vexp ins(%buf : memref<4x32xf32>) outs(%buf : memref<4x32xf32>)
// REMARK: remark: @rows_in_loop: split on axis 1
func.func @rows_in_loop(%a: memref<4x64xf32>, %o: memref<4x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %buf = memref.alloc() : memref<4x64xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %src = memref.subview %a[%i, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<64xf32, strided<[1], offset: ?>>
    %row = memref.subview %buf[%i, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<64xf32, strided<[1], offset: ?>>
    hivm.hir.load ins(%src : memref<64xf32, strided<[1], offset: ?>>) outs(%row : memref<64xf32, strided<[1], offset: ?>>)
  }
  hivm.hir.vexp ins(%buf : memref<4x64xf32>) outs(%buf : memref<4x64xf32>)
  hivm.hir.store ins(%buf : memref<4x64xf32>) outs(%o : memref<4x64xf32>)
  return
}
