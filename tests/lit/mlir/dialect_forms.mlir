// Every op and attribute form of HIVMDialect.md's assembly formats, in chunks of our own: each parses and prints
// back as read (first RUN); with the pass (second RUN) each function is split, rolled back with a located
// reason, or left alone (AIC / already bound) -- never a crash.
// RUN: tilefold mlir-opt %s -split-input-file | filecheck %s
// RUN: tilefold mlir-opt %s -split-input-file -hivm-bind-sub-block --remarks -o %t 2>&1 | filecheck %s --check-prefix=PASS

// Unary vector ops in the tensor form, with temp_buffer, broadcast = [...] and transpose = [...].
// CHECK-LABEL: func.func @unary_forms(
// CHECK-NEXT: %e = tensor.empty() : tensor<16x64xf32>
// CHECK-NEXT: %ei = tensor.empty() : tensor<16x64xi32>
// CHECK-NEXT: %a = hivm.hir.vabs ins(%x : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %b = hivm.hir.vexp ins(%a : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) temp_buffer(%tmp : memref<512xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %c = hivm.hir.vln ins(%b : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %d = hivm.hir.vrelu ins(%c : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %f = hivm.hir.vsqrt ins(%d : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %g = hivm.hir.vrsqrt ins(%f : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %h = hivm.hir.vrec ins(%g : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %k = hivm.hir.vsin ins(%h : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %l = hivm.hir.vcos ins(%k : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %m = hivm.hir.vtanh ins(%l : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %n = hivm.hir.verf ins(%m : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %p = hivm.hir.vnot ins(%i : tensor<16x64xi32>) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
// CHECK-NEXT: %row = tensor.empty() : tensor<1x64xf32>
// CHECK-NEXT: %q = hivm.hir.vabs ins(%row : tensor<1x64xf32>) outs(%e : tensor<16x64xf32>) broadcast = [0] -> tensor<16x64xf32>
// CHECK-NEXT: %t = tensor.empty() : tensor<64x16xf32>
// CHECK-NEXT: %r = hivm.hir.vexp ins(%t : tensor<64x16xf32>) outs(%e : tensor<16x64xf32>) transpose = [1, 0] -> tensor<16x64xf32>
// CHECK-NEXT: return %n : tensor<16x64xf32>
// CHECK-NEXT: }
func.func @unary_forms(%x: tensor<16x64xf32>, %i: tensor<16x64xi32>, %tmp: memref<512xf32>) -> tensor<16x64xf32> attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %e = tensor.empty() : tensor<16x64xf32>
  %ei = tensor.empty() : tensor<16x64xi32>
  %a = hivm.hir.vabs ins(%x : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %b = hivm.hir.vexp ins(%a : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) temp_buffer(%tmp : memref<512xf32>) -> tensor<16x64xf32>
  %c = hivm.hir.vln ins(%b : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %d = hivm.hir.vrelu ins(%c : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %f = hivm.hir.vsqrt ins(%d : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %g = hivm.hir.vrsqrt ins(%f : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %h = hivm.hir.vrec ins(%g : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %k = hivm.hir.vsin ins(%h : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %l = hivm.hir.vcos ins(%k : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m = hivm.hir.vtanh ins(%l : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %n = hivm.hir.verf ins(%m : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %p = hivm.hir.vnot ins(%i : tensor<16x64xi32>) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
  %row = tensor.empty() : tensor<1x64xf32>
  %q = hivm.hir.vabs ins(%row : tensor<1x64xf32>) outs(%e : tensor<16x64xf32>) broadcast = [0] -> tensor<16x64xf32>
  %t = tensor.empty() : tensor<64x16xf32>
  %r = hivm.hir.vexp ins(%t : tensor<64x16xf32>) outs(%e : tensor<16x64xf32>) transpose = [1, 0] -> tensor<16x64xf32>
  return %n : tensor<16x64xf32>
}

// -----

// Binary vector ops: tensor / scalar / broadcast operands, integer bit ops, vshr's `round : true`, the
// two-result vmulextended (printed `%lo:2`), vcmp's compare_mode, vsel, vcast's round_mode.
// CHECK-LABEL: func.func @binary_forms(
// CHECK-NEXT: %e = tensor.empty() : tensor<16x64xf32>
// CHECK-NEXT: %ei = tensor.empty() : tensor<16x64xi32>
// CHECK-NEXT: %a = hivm.hir.vadd ins(%x, %y : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %b = hivm.hir.vsub ins(%a, %s : tensor<16x64xf32>, f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %c = hivm.hir.vmul ins(%b, %col : tensor<16x64xf32>, tensor<16x1xf32>) outs(%e : tensor<16x64xf32>) broadcast = [1] -> tensor<16x64xf32>
// CHECK-NEXT: %d = hivm.hir.vdiv ins(%c, %y : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %f = hivm.hir.vmax ins(%d, %x : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %g = hivm.hir.vmin ins(%f, %s : tensor<16x64xf32>, f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %h = hivm.hir.vpow ins(%g, %y : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %k = hivm.hir.vand ins(%i, %j : tensor<16x64xi32>, tensor<16x64xi32>) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
// CHECK-NEXT: %l = hivm.hir.vor ins(%k, %j : tensor<16x64xi32>, tensor<16x64xi32>) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
// CHECK-NEXT: %m = hivm.hir.vxor ins(%l, %i : tensor<16x64xi32>, tensor<16x64xi32>) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
// CHECK-NEXT: %n = hivm.hir.vshl ins(%m, %sh : tensor<16x64xi32>, i32) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
// CHECK-NEXT: %o = hivm.hir.vshr ins(%n, %sh : tensor<16x64xi32>, i32) outs(%ei : tensor<16x64xi32>) round : true -> tensor<16x64xi32>
// CHECK-NEXT: %p = hivm.hir.vmod ins(%o, %j : tensor<16x64xi32>, tensor<16x64xi32>) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
// CHECK-NEXT: %q = hivm.hir.vmulext ins(%p, %j : tensor<16x64xi32>, tensor<16x64xi32>) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
// CHECK-NEXT: %lo:2 = hivm.hir.vmulextended ins(%i, %j : tensor<16x64xi32>, tensor<16x64xi32>) outs(%ei, %ei : tensor<16x64xi32>, tensor<16x64xi32>) -> tensor<16x64xi32>, tensor<16x64xi32>
// CHECK-NEXT: %me = tensor.empty() : tensor<16x64xi1>
// CHECK-NEXT: %mk = hivm.hir.vcmp ins(%x, %y : tensor<16x64xf32>, tensor<16x64xf32>) outs(%me : tensor<16x64xi1>) compare_mode = <gt> -> tensor<16x64xi1>
// CHECK-NEXT: %sel = hivm.hir.vsel ins(%mk, %x, %y : tensor<16x64xi1>, tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %cv = hivm.hir.vcast ins(%sel : tensor<16x64xf32>) outs(%ei : tensor<16x64xi32>) round_mode = <trunc> -> tensor<16x64xi32>
// CHECK-NEXT: %ch = tensor.empty() : tensor<16x64xf16>
// CHECK-NEXT: %cw = hivm.hir.vcast ins(%sel : tensor<16x64xf32>) outs(%ch : tensor<16x64xf16>) round_mode = <rint> -> tensor<16x64xf16>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @binary_forms(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>, %col: tensor<16x1xf32>, %i: tensor<16x64xi32>, %j: tensor<16x64xi32>, %s: f32, %sh: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %e = tensor.empty() : tensor<16x64xf32>
  %ei = tensor.empty() : tensor<16x64xi32>
  %a = hivm.hir.vadd ins(%x, %y : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %b = hivm.hir.vsub ins(%a, %s : tensor<16x64xf32>, f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %c = hivm.hir.vmul ins(%b, %col : tensor<16x64xf32>, tensor<16x1xf32>) outs(%e : tensor<16x64xf32>) broadcast = [1] -> tensor<16x64xf32>
  %d = hivm.hir.vdiv ins(%c, %y : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %f = hivm.hir.vmax ins(%d, %x : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %g = hivm.hir.vmin ins(%f, %s : tensor<16x64xf32>, f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %h = hivm.hir.vpow ins(%g, %y : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %k = hivm.hir.vand ins(%i, %j : tensor<16x64xi32>, tensor<16x64xi32>) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
  %l = hivm.hir.vor ins(%k, %j : tensor<16x64xi32>, tensor<16x64xi32>) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
  %m = hivm.hir.vxor ins(%l, %i : tensor<16x64xi32>, tensor<16x64xi32>) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
  %n = hivm.hir.vshl ins(%m, %sh : tensor<16x64xi32>, i32) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
  %o = hivm.hir.vshr ins(%n, %sh : tensor<16x64xi32>, i32) outs(%ei : tensor<16x64xi32>) round : true -> tensor<16x64xi32>
  %p = hivm.hir.vmod ins(%o, %j : tensor<16x64xi32>, tensor<16x64xi32>) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
  %q = hivm.hir.vmulext ins(%p, %j : tensor<16x64xi32>, tensor<16x64xi32>) outs(%ei : tensor<16x64xi32>) -> tensor<16x64xi32>
  %lo, %hi = hivm.hir.vmulextended ins(%i, %j : tensor<16x64xi32>, tensor<16x64xi32>) outs(%ei, %ei : tensor<16x64xi32>, tensor<16x64xi32>) -> tensor<16x64xi32>, tensor<16x64xi32>
  %me = tensor.empty() : tensor<16x64xi1>
  %mk = hivm.hir.vcmp ins(%x, %y : tensor<16x64xf32>, tensor<16x64xf32>) outs(%me : tensor<16x64xi1>) compare_mode = <gt> -> tensor<16x64xi1>
  %sel = hivm.hir.vsel ins(%mk, %x, %y : tensor<16x64xi1>, tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %cv = hivm.hir.vcast ins(%sel : tensor<16x64xf32>) outs(%ei : tensor<16x64xi32>) round_mode = <trunc> -> tensor<16x64xi32>
  %ch = tensor.empty() : tensor<16x64xf16>
  %cw = hivm.hir.vcast ins(%sel : tensor<16x64xf32>) outs(%ch : tensor<16x64xf16>) round_mode = <rint> -> tensor<16x64xf16>
  return
}

// -----

// Shape-changing and data-movement vector ops: vbrc (tensor and scalar), vreduce (with an index result),
// vtranspose, vconcat dim(..), vcumsum / vcumprod, vflip, vpad low/high/pad_value, vsort, vinterleave,
// vdeinterleave, vgather indices(..), varange offset[..] strides[..].
// CHECK-LABEL: func.func @shape_forms(
// CHECK-NEXT: %e = tensor.empty() : tensor<16x64xf32>
// CHECK-NEXT: %b = hivm.hir.vbrc ins(%col : tensor<16x1xf32>) outs(%e : tensor<16x64xf32>) broadcast_dims = [1] -> tensor<16x64xf32>
// CHECK-NEXT: %f = hivm.hir.vbrc ins(%pv : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %r1 = tensor.empty() : tensor<16x1xf32>
// CHECK-NEXT: %sum = hivm.hir.vreduce <sum> ins(%b : tensor<16x64xf32>) outs(%r1 : tensor<16x1xf32>) reduce_dims = [1] -> tensor<16x1xf32>
// CHECK-NEXT: %ri = tensor.empty() : tensor<16x1xi32>
// CHECK-NEXT: %mx:2 = hivm.hir.vreduce <max_with_index_left> ins(%x : tensor<16x64xf32>) outs(%r1, %ri : tensor<16x1xf32>, tensor<16x1xi32>) reduce_dims = [1] -> tensor<16x1xf32>, tensor<16x1xi32>
// CHECK-NEXT: %et = tensor.empty() : tensor<64x16xf32>
// CHECK-NEXT: %t = hivm.hir.vtranspose ins(%x : tensor<16x64xf32>) outs(%et : tensor<64x16xf32>) permutation = [1, 0] -> tensor<64x16xf32>
// CHECK-NEXT: %e2 = tensor.empty() : tensor<32x64xf32>
// CHECK-NEXT: %cat = hivm.hir.vconcat dim(0) ins(%x, %f : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e2 : tensor<32x64xf32>) -> tensor<32x64xf32>
// CHECK-NEXT: %cs = hivm.hir.vcumsum ins(%x : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) cum_dims = [1] reverse = false -> tensor<16x64xf32>
// CHECK-NEXT: %cp = hivm.hir.vcumprod ins(%x : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) cum_dims = [0] reverse = true -> tensor<16x64xf32>
// CHECK-NEXT: %fl = hivm.hir.vflip ins(%x : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) flip_axis = 1 -> tensor<16x64xf32>
// CHECK-NEXT: %ep = tensor.empty() : tensor<18x64xf32>
// CHECK-NEXT: %pd = hivm.hir.vpad ins(%x : tensor<16x64xf32>) outs(%ep : tensor<18x64xf32>) low[1, 0] high[1, 0] pad_value %pv : f32 -> tensor<18x64xf32>
// CHECK-NEXT: %so = hivm.hir.vsort ins(%x : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) descending = true sort_axis = 1 -> tensor<16x64xf32>
// CHECK-NEXT: %ev = tensor.empty() : tensor<128xf32>
// CHECK-NEXT: %il = hivm.hir.vinterleave ins(%v, %v : tensor<64xf32>, tensor<64xf32>) outs(%ev : tensor<128xf32>) interleave_channel_nums = 2 -> tensor<128xf32>
// CHECK-NEXT: %eh = tensor.empty() : tensor<32xf32>
// CHECK-NEXT: %dl = hivm.hir.vdeinterleave ins(%v : tensor<64xf32>) outs(%eh : tensor<32xf32>) channel_num = 2 index_mode = <CHANNEL_0> -> tensor<32xf32>
// CHECK-NEXT: %eg = tensor.empty() : tensor<16x8xf32>
// CHECK-NEXT: %g = hivm.hir.vgather ins(%x : tensor<16x64xf32>) indices(%idx : tensor<16x8xi32>) outs(%eg : tensor<16x8xf32>) -> tensor<16x8xf32>
// CHECK-NEXT: %ea = tensor.empty() : tensor<64xf32>
// CHECK-NEXT: %ar = hivm.hir.varange offset[%o] strides[%s0] outs(%ea : tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: %ar2 = hivm.hir.varange strides[%s0] outs(%ea : tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @shape_forms(%x: tensor<16x64xf32>, %col: tensor<16x1xf32>, %v: tensor<64xf32>, %pv: f32, %o: index, %s0: index, %idx: tensor<16x8xi32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %e = tensor.empty() : tensor<16x64xf32>
  %b = hivm.hir.vbrc ins(%col : tensor<16x1xf32>) outs(%e : tensor<16x64xf32>) broadcast_dims = [1] -> tensor<16x64xf32>
  %f = hivm.hir.vbrc ins(%pv : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r1 = tensor.empty() : tensor<16x1xf32>
  %sum = hivm.hir.vreduce <sum> ins(%b : tensor<16x64xf32>) outs(%r1 : tensor<16x1xf32>) reduce_dims = [1] -> tensor<16x1xf32>
  %ri = tensor.empty() : tensor<16x1xi32>
  %mx:2 = hivm.hir.vreduce <max_with_index_left> ins(%x : tensor<16x64xf32>) outs(%r1, %ri : tensor<16x1xf32>, tensor<16x1xi32>) reduce_dims = [1] -> tensor<16x1xf32>, tensor<16x1xi32>
  %et = tensor.empty() : tensor<64x16xf32>
  %t = hivm.hir.vtranspose ins(%x : tensor<16x64xf32>) outs(%et : tensor<64x16xf32>) permutation = [1, 0] -> tensor<64x16xf32>
  %e2 = tensor.empty() : tensor<32x64xf32>
  %cat = hivm.hir.vconcat dim(0) ins(%x, %f : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e2 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %cs = hivm.hir.vcumsum ins(%x : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) cum_dims = [1] reverse = false -> tensor<16x64xf32>
  %cp = hivm.hir.vcumprod ins(%x : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) cum_dims = [0] reverse = true -> tensor<16x64xf32>
  %fl = hivm.hir.vflip ins(%x : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) flip_axis = 1 -> tensor<16x64xf32>
  %ep = tensor.empty() : tensor<18x64xf32>
  %pd = hivm.hir.vpad ins(%x : tensor<16x64xf32>) outs(%ep : tensor<18x64xf32>) low[1, 0] high[1, 0] pad_value %pv : f32 -> tensor<18x64xf32>
  %so = hivm.hir.vsort ins(%x : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) descending = true sort_axis = 1 -> tensor<16x64xf32>
  %ev = tensor.empty() : tensor<128xf32>
  %il = hivm.hir.vinterleave ins(%v, %v : tensor<64xf32>, tensor<64xf32>) outs(%ev : tensor<128xf32>) interleave_channel_nums = 2 -> tensor<128xf32>
  %eh = tensor.empty() : tensor<32xf32>
  %dl = hivm.hir.vdeinterleave ins(%v : tensor<64xf32>) outs(%eh : tensor<32xf32>) channel_num = 2 index_mode = <CHANNEL_0> -> tensor<32xf32>
  %eg = tensor.empty() : tensor<16x8xf32>
  %g = hivm.hir.vgather ins(%x : tensor<16x64xf32>) indices(%idx : tensor<16x8xi32>) outs(%eg : tensor<16x8xf32>) -> tensor<16x8xf32>
  %ea = tensor.empty() : tensor<64xf32>
  %ar = hivm.hir.varange offset[%o] strides[%s0] outs(%ea : tensor<64xf32>) -> tensor<64xf32>
  %ar2 = hivm.hir.varange strides[%s0] outs(%ea : tensor<64xf32>) -> tensor<64xf32>
  return
}

// -----

// Memory ops with their optional keywords: load pad_mode / pad_value / left_padding_num / init_out_buffer,
// copy, store atomic = <add>, load_scalar, atomic_cas / atomic_rmw / atomic_xchg, bitcast, pointer_cast.
// CHECK-LABEL: func.func @memory_forms(
// CHECK-NEXT: %ub = memref.alloc() : memref<16x64xf32, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.load ins(%gm : memref<16x64xf32, #hivm.address_space<gm>>) outs(%ub : memref<16x64xf32, #hivm.address_space<ub>>) pad_mode = <PadValue> pad_value = %pv : f32 left_padding_num = %n : index
// CHECK-NEXT: hivm.hir.load ins(%gm : memref<16x64xf32, #hivm.address_space<gm>>) outs(%ub : memref<16x64xf32, #hivm.address_space<ub>>) init_out_buffer = true
// CHECK-NEXT: %ub2 = memref.alloc() : memref<16x64xf32, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.copy ins(%ub : memref<16x64xf32, #hivm.address_space<ub>>) outs(%ub2 : memref<16x64xf32, #hivm.address_space<ub>>)
// CHECK-NEXT: hivm.hir.store ins(%ub2 : memref<16x64xf32, #hivm.address_space<ub>>) outs(%out : memref<16x64xf32, #hivm.address_space<gm>>) atomic = <add>
// CHECK-NEXT: %s = hivm.hir.load_scalar %p : memref<1xf32, #hivm.address_space<gm>> -> f32
// CHECK-NEXT: %cmpv = memref.alloc() : memref<1xi32, #hivm.address_space<ub>>
// CHECK-NEXT: hivm.hir.atomic_cas ins(%cmpv, %cmpv : memref<1xi32, #hivm.address_space<ub>>, memref<1xi32, #hivm.address_space<ub>>) outs(%flag : memref<1xi32, #hivm.address_space<gm>>)
// CHECK-NEXT: hivm.hir.atomic_rmw ins(%cmpv : memref<1xi32, #hivm.address_space<ub>>) outs(%flag : memref<1xi32, #hivm.address_space<gm>>) atomic_kind = <max>
// CHECK-NEXT: hivm.hir.atomic_xchg ins(%cmpv : memref<1xi32, #hivm.address_space<ub>>) outs(%flag : memref<1xi32, #hivm.address_space<gm>>)
// CHECK-NEXT: %bits = hivm.hir.bitcast %ub2 : memref<16x64xf32, #hivm.address_space<ub>> -> memref<16x64xi32, #hivm.address_space<ub>>
// CHECK-NEXT: %c0 = arith.constant 0 : i64
// CHECK-NEXT: %raw = hivm.hir.pointer_cast(%c0) : memref<16x64xf32, #hivm.address_space<ub>>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @memory_forms(%gm: memref<16x64xf32, #hivm.address_space<gm>>, %out: memref<16x64xf32, #hivm.address_space<gm>>, %pv: f32, %n: index, %flag: memref<1xi32, #hivm.address_space<gm>>, %p: memref<1xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %ub = memref.alloc() : memref<16x64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<16x64xf32, #hivm.address_space<gm>>) outs(%ub : memref<16x64xf32, #hivm.address_space<ub>>) pad_mode = <PadValue> pad_value = %pv : f32 left_padding_num = %n : index
  hivm.hir.load ins(%gm : memref<16x64xf32, #hivm.address_space<gm>>) outs(%ub : memref<16x64xf32, #hivm.address_space<ub>>) init_out_buffer = true
  %ub2 = memref.alloc() : memref<16x64xf32, #hivm.address_space<ub>>
  hivm.hir.copy ins(%ub : memref<16x64xf32, #hivm.address_space<ub>>) outs(%ub2 : memref<16x64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%ub2 : memref<16x64xf32, #hivm.address_space<ub>>) outs(%out : memref<16x64xf32, #hivm.address_space<gm>>) atomic = <add>
  %s = hivm.hir.load_scalar %p : memref<1xf32, #hivm.address_space<gm>> -> f32
  %cmpv = memref.alloc() : memref<1xi32, #hivm.address_space<ub>>
  hivm.hir.atomic_cas ins(%cmpv, %cmpv : memref<1xi32, #hivm.address_space<ub>>, memref<1xi32, #hivm.address_space<ub>>) outs(%flag : memref<1xi32, #hivm.address_space<gm>>)
  hivm.hir.atomic_rmw ins(%cmpv : memref<1xi32, #hivm.address_space<ub>>) outs(%flag : memref<1xi32, #hivm.address_space<gm>>) atomic_kind = <max>
  hivm.hir.atomic_xchg ins(%cmpv : memref<1xi32, #hivm.address_space<ub>>) outs(%flag : memref<1xi32, #hivm.address_space<gm>>)
  %bits = hivm.hir.bitcast %ub2 : memref<16x64xf32, #hivm.address_space<ub>> -> memref<16x64xi32, #hivm.address_space<ub>>
  %c0 = arith.constant 0 : i64
  %raw = hivm.hir.pointer_cast(%c0) : memref<16x64xf32, #hivm.address_space<ub>>
  return
}

// -----

// Synchronisation, indices and debug ops: set_ffts_base_addr, set_mask_norm, set_flag / wait_flag,
// pipe_barrier, sync_block (mode, flag id, keywords), sync_block_set / _wait, the block lock ops, dcci,
// get_block_idx / _num, get_sub_block_idx / _num, get_sys_cnt, init_debug / debug / finish_debug.
// CHECK-LABEL: func.func @sync_and_debug_forms(
// CHECK-NEXT: hivm.hir.set_ffts_base_addr %ffts
// CHECK-NEXT: hivm.hir.set_mask_norm
// CHECK-NEXT: hivm.hir.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
// CHECK-NEXT: hivm.hir.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
// CHECK-NEXT: hivm.hir.pipe_barrier[<PIPE_ALL>]
// CHECK-NEXT: %c3 = arith.constant 3 : i64
// CHECK-NEXT: hivm.hir.sync_block[<BARRIER_VECTOR>]
// CHECK-NEXT: hivm.hir.sync_block[<ALL_VECTOR>, %c3 : i64] ffts_base_addr = %ffts tvector_pipe = <PIPE_MTE3>
// CHECK-NEXT: hivm.hir.sync_block_set[<VECTOR>, <PIPE_MTE3>, <PIPE_FIX>] flag = 5
// CHECK-NEXT: hivm.hir.sync_block_wait[<VECTOR>, <PIPE_FIX>, <PIPE_MTE2>] flag = 5
// CHECK-NEXT: %l = hivm.hir.create_sync_block_lock : memref<1xi64>
// CHECK-NEXT: hivm.hir.sync_block_lock lock_var(%lock : memref<1xi64>)
// CHECK-NEXT: hivm.hir.sync_block_unlock lock_var(%lock : memref<1xi64>)
// CHECK-NEXT: hivm.hir.dcci(<single_cache_line>, <all>, %x : memref<16xf32>)
// CHECK-NEXT: %b = hivm.hir.get_block_idx -> i64
// CHECK-NEXT: %nb = hivm.hir.get_block_num -> i64
// CHECK-NEXT: %sbi = hivm.hir.get_sub_block_idx -> i64
// CHECK-NEXT: %snb = hivm.hir.get_sub_block_num -> i64
// CHECK-NEXT: %clk = hivm.hir.get_sys_cnt -> i64
// CHECK-NEXT: hivm.hir.init_debug
// CHECK-NEXT: hivm.hir.debug {debugtype = "print", hex = false, prefix = " block: "} %b : i64
// CHECK-NEXT: hivm.hir.debug {debugtype = "print", hex = true, prefix = " x: "} %x : memref<16xf32>
// CHECK-NEXT: hivm.hir.finish_debug
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @sync_and_debug_forms(%x: memref<16xf32>, %ffts: i64, %lock: memref<1xi64>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  hivm.hir.set_ffts_base_addr %ffts
  hivm.hir.set_mask_norm
  hivm.hir.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
  hivm.hir.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
  hivm.hir.pipe_barrier[<PIPE_ALL>]
  %c3 = arith.constant 3 : i64
  hivm.hir.sync_block[<BARRIER_VECTOR>]
  hivm.hir.sync_block[<ALL_VECTOR>, %c3 : i64] ffts_base_addr = %ffts tvector_pipe = <PIPE_MTE3>
  hivm.hir.sync_block_set[<VECTOR>, <PIPE_MTE3>, <PIPE_FIX>] flag = 5
  hivm.hir.sync_block_wait[<VECTOR>, <PIPE_FIX>, <PIPE_MTE2>] flag = 5
  %l = hivm.hir.create_sync_block_lock : memref<1xi64>
  hivm.hir.sync_block_lock lock_var(%lock : memref<1xi64>)
  hivm.hir.sync_block_unlock lock_var(%lock : memref<1xi64>)
  hivm.hir.dcci(<single_cache_line>, <all>, %x : memref<16xf32>)
  %b = hivm.hir.get_block_idx -> i64
  %nb = hivm.hir.get_block_num -> i64
  %sbi = hivm.hir.get_sub_block_idx -> i64
  %snb = hivm.hir.get_sub_block_num -> i64
  %clk = hivm.hir.get_sys_cnt -> i64
  hivm.hir.init_debug
  hivm.hir.debug {debugtype = "print", hex = false, prefix = " block: "} %b : i64
  hivm.hir.debug {debugtype = "print", hex = true, prefix = " x: "} %x : memref<16xf32>
  hivm.hir.finish_debug
  return
}

// -----

// Cube ops (an AIC function, left alone by the pass): mmadL1, batchMmadL1, fixpipe, nd2nz / nz2nd, matmul,
// mix_matmul (with a unit keyword), mix_group_matmul, convert_layout.
// CHECK-LABEL: func.func @cube_forms(
// CHECK-NEXT: %true = arith.constant true
// CHECK-NEXT: %m = arith.constant 64 : index
// CHECK-NEXT: %k = arith.constant 32 : index
// CHECK-NEXT: %n = arith.constant 64 : index
// CHECK-NEXT: hivm.hir.mmadL1 ins(%a, %b, %true, %m, %k, %n : memref<64x32xf16, #hivm.address_space<cbuf>>, memref<32x64xf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%c : memref<64x64xf32, #hivm.address_space<cc>>)
// CHECK-NEXT: hivm.hir.batchMmadL1 ins(%a, %b, %true, %m, %k, %n : memref<64x32xf16, #hivm.address_space<cbuf>>, memref<32x64xf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%c : memref<64x64xf32, #hivm.address_space<cc>>)
// CHECK-NEXT: hivm.hir.fixpipe ins(%c : memref<64x64xf32, #hivm.address_space<cc>>) outs(%g : memref<64x64xf32, #hivm.address_space<gm>>)
// CHECK-NEXT: %l1 = memref.alloc() : memref<4x4x16x16xf16, #hivm.address_space<cbuf>>
// CHECK-NEXT: hivm.hir.nd2nz ins(%nd : memref<64x32xf16, #hivm.address_space<gm>>) outs(%l1 : memref<4x4x16x16xf16, #hivm.address_space<cbuf>>) init_out_buffer = false
// CHECK-NEXT: %back = memref.alloc() : memref<64x32xf16, #hivm.address_space<cbuf>>
// CHECK-NEXT: hivm.hir.nz2nd ins(%l1 : memref<4x4x16x16xf16, #hivm.address_space<cbuf>>) outs(%back : memref<64x32xf16, #hivm.address_space<cbuf>>)
// CHECK-NEXT: %r = hivm.hir.matmul ins(%ga, %gb : tensor<64x32xf16>, tensor<32x64xf16>) outs(%gc : tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK-NEXT: %r2 = hivm.hir.mix_matmul ins(%ga, %gb : tensor<64x32xf16>, tensor<32x64xf16>) outs(%gc : tensor<64x64xf32>) b_transpose -> tensor<64x64xf32>
// CHECK-NEXT: %r3 = hivm.hir.mix_group_matmul ins(%ga, %gb, %tok : tensor<64x32xf16>, tensor<32x64xf16>, tensor<4xi64>) outs(%gc : tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK-NEXT: %cl = hivm.hir.convert_layout %a {srcLayout = #hivm.data_layout<ND>, dstLayout = #hivm.data_layout<nZ>} : (memref<64x32xf16, #hivm.address_space<cbuf>>) -> memref<4x4x16x16xf16, #hivm.address_space<cbuf>>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @cube_forms(%a: memref<64x32xf16, #hivm.address_space<cbuf>>, %b: memref<32x64xf16, #hivm.address_space<cbuf>>, %c: memref<64x64xf32, #hivm.address_space<cc>>, %g: memref<64x64xf32, #hivm.address_space<gm>>, %ga: tensor<64x32xf16>, %gb: tensor<32x64xf16>, %gc: tensor<64x64xf32>, %tok: tensor<4xi64>, %nd: memref<64x32xf16, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIC>} {
  %true = arith.constant true
  %m = arith.constant 64 : index
  %k = arith.constant 32 : index
  %n = arith.constant 64 : index
  hivm.hir.mmadL1 ins(%a, %b, %true, %m, %k, %n : memref<64x32xf16, #hivm.address_space<cbuf>>, memref<32x64xf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%c : memref<64x64xf32, #hivm.address_space<cc>>)
  hivm.hir.batchMmadL1 ins(%a, %b, %true, %m, %k, %n : memref<64x32xf16, #hivm.address_space<cbuf>>, memref<32x64xf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%c : memref<64x64xf32, #hivm.address_space<cc>>)
  hivm.hir.fixpipe ins(%c : memref<64x64xf32, #hivm.address_space<cc>>) outs(%g : memref<64x64xf32, #hivm.address_space<gm>>)
  %l1 = memref.alloc() : memref<4x4x16x16xf16, #hivm.address_space<cbuf>>
  hivm.hir.nd2nz ins(%nd : memref<64x32xf16, #hivm.address_space<gm>>) outs(%l1 : memref<4x4x16x16xf16, #hivm.address_space<cbuf>>) init_out_buffer = false
  %back = memref.alloc() : memref<64x32xf16, #hivm.address_space<cbuf>>
  hivm.hir.nz2nd ins(%l1 : memref<4x4x16x16xf16, #hivm.address_space<cbuf>>) outs(%back : memref<64x32xf16, #hivm.address_space<cbuf>>)
  %r = hivm.hir.matmul ins(%ga, %gb : tensor<64x32xf16>, tensor<32x64xf16>) outs(%gc : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r2 = hivm.hir.mix_matmul ins(%ga, %gb : tensor<64x32xf16>, tensor<32x64xf16>) outs(%gc : tensor<64x64xf32>) b_transpose -> tensor<64x64xf32>
  %r3 = hivm.hir.mix_group_matmul ins(%ga, %gb, %tok : tensor<64x32xf16>, tensor<32x64xf16>, tensor<4xi64>) outs(%gc : tensor<64x64xf32>) -> tensor<64x64xf32>
  %cl = hivm.hir.convert_layout %a {srcLayout = #hivm.data_layout<ND>, dstLayout = #hivm.data_layout<nZ>} : (memref<64x32xf16, #hivm.address_space<cbuf>>) -> memref<4x4x16x16xf16, #hivm.address_space<cbuf>>
  return
}

// -----

// Module and function attributes (hacc.target, hivm.module_core_type, hacc.function_kind, hacc.entry,
// argument attributes, hivm.part_of_mix) and the standard forms: scf.while / scf.if / scf.for with attributes,
// memref.reinterpret_cast and memref.view, tensor extract_slice / insert_slice / extract / insert,
// affine.apply / min / max (printed through #map aliases), scope.scope regions, annotation.mark.
// CHECK: #map = affine_map<(d0) -> (d0 * 16)>
// CHECK-NEXT: #map1 = affine_map<(d0)[s0] -> (d0, s0)>
// CHECK-NEXT: #map2 = affine_map<(d0) -> (d0, 8)>
// CHECK-NEXT: module attributes {hacc.target = #hacc.target<"Ascend910B1">, hivm.module_core_type = #hivm.module_core_type<MIX>} {
// CHECK-LABEL: func.func @host_side(
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-LABEL: func.func @mixed_vector_part(
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %r = scf.while (%i = %c0) : (index) -> index {
// CHECK-NEXT: %go = arith.cmpi slt, %i, %c4 : index
// CHECK-NEXT: scf.condition(%go) %i : index
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%j: index):
// CHECK-NEXT: %nx = arith.addi %j, %c1 : index
// CHECK-NEXT: scf.yield %nx : index
// CHECK-NEXT: }
// CHECK-NEXT: %v = memref.reinterpret_cast %x to offset: [0], sizes: [8, 8], strides: [8, 1] : memref<64xf32> to memref<8x8xf32, strided<[8, 1]>>
// CHECK-NEXT: %raw = memref.alloc() : memref<2048xi8>
// CHECK-NEXT: %w = memref.view %raw[%c0][] : memref<2048xi8> to memref<8x64xf32>
// CHECK-NEXT: %t = tensor.empty() : tensor<8x64xf32>
// CHECK-NEXT: %s = tensor.extract_slice %t[0, 0] [4, 64] [1, 1] : tensor<8x64xf32> to tensor<4x64xf32>
// CHECK-NEXT: %u = tensor.insert_slice %s into %t[4, 0] [4, 64] [1, 1] : tensor<4x64xf32> into tensor<8x64xf32>
// CHECK-NEXT: %e = tensor.extract %u[%c1, %c0] : tensor<8x64xf32>
// CHECK-NEXT: %ins = tensor.insert %e into %u[%c0, %c0] : tensor<8x64xf32>
// CHECK-NEXT: %ap = affine.apply #map(%c1)
// CHECK-NEXT: %mn = affine.min #map1(%ap)[%c4]
// CHECK-NEXT: %mx = affine.max #map2(%mn)
// CHECK-NEXT: %flag = arith.cmpi eq, %mx, %c4 : index
// CHECK-NEXT: scf.if %flag {
// CHECK-NEXT: hivm.hir.pipe_barrier[<PIPE_V>]
// CHECK-NEXT: }
// CHECK-NEXT: scope.scope : () -> () {
// CHECK-NEXT: %in = tensor.empty() : tensor<4x64xf32>
// CHECK-NEXT: scope.return
// CHECK-NEXT: } {hivm.tcore_type = #hivm.tcore_type<VECTOR>}
// CHECK-NEXT: annotation.mark %t {hivm.multi_buffer = 2 : i32} : tensor<8x64xf32>
// CHECK-NEXT: %tt = bufferization.to_tensor %w restrict writable : memref<8x64xf32> to tensor<8x64xf32>
// CHECK-NEXT: scf.for %k = %c0 to %c4 step %c1 {
// CHECK-NEXT: hivm.hir.set_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID1>]
// CHECK-NEXT: } {hivm.parallel_loop}
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
module attributes {hacc.target = #hacc.target<"Ascend910B1">, hivm.module_core_type = #hivm.module_core_type<MIX>} {
  func.func @host_side(%x: memref<64xf32>) attributes {hacc.function_kind = #hacc.function_kind<HOST>, hacc.host_func_type = #hacc.host_func_type<infer_output_shape_function>} {
    return
  }
  func.func @mixed_vector_part(%x: memref<64xf32> {hacc.arg_type = #hacc.arg_type<input>, hacc.input_idx = #hacc.input_idx<0>}, %y: memref<64xf32> {hacc.arg_type = #hacc.arg_type<output>, hacc.output_idx = #hacc.output_idx<0>}) attributes {hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>, hivm.part_of_mix} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %r = scf.while (%i = %c0) : (index) -> index {
      %go = arith.cmpi slt, %i, %c4 : index
      scf.condition(%go) %i : index
    } do {
    ^bb0(%j: index):
      %nx = arith.addi %j, %c1 : index
      scf.yield %nx : index
    }
    %v = memref.reinterpret_cast %x to offset: [0], sizes: [8, 8], strides: [8, 1] : memref<64xf32> to memref<8x8xf32, strided<[8, 1]>>
    %raw = memref.alloc() : memref<2048xi8>
    %w = memref.view %raw[%c0][] : memref<2048xi8> to memref<8x64xf32>
    %t = tensor.empty() : tensor<8x64xf32>
    %s = tensor.extract_slice %t[0, 0] [4, 64] [1, 1] : tensor<8x64xf32> to tensor<4x64xf32>
    %u = tensor.insert_slice %s into %t[4, 0] [4, 64] [1, 1] : tensor<4x64xf32> into tensor<8x64xf32>
    %e = tensor.extract %u[%c1, %c0] : tensor<8x64xf32>
    %ins = tensor.insert %e into %u[%c0, %c0] : tensor<8x64xf32>
    %ap = affine.apply affine_map<(d0) -> (d0 * 16)>(%c1)
    %mn = affine.min affine_map<(d0)[s0] -> (d0, s0)>(%ap)[%c4]
    %mx = affine.max affine_map<(d0) -> (d0, 8)>(%mn)
    %flag = arith.cmpi eq, %mx, %c4 : index
    scf.if %flag {
      hivm.hir.pipe_barrier[<PIPE_V>]
    }
    scope.scope : () -> () {
      %in = tensor.empty() : tensor<4x64xf32>
      scope.return
    } {hivm.tcore_type = #hivm.tcore_type<VECTOR>}
    annotation.mark %t {hivm.multi_buffer = 2 : i32} : tensor<8x64xf32>
    %tt = bufferization.to_tensor %w restrict writable : memref<8x64xf32> to tensor<8x64xf32>
    scf.for %k = %c0 to %c4 step %c1 {
      hivm.hir.set_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID1>]
    } {hivm.parallel_loop}
    return
  }
}

// With the pass: tensor-typed arguments and atomic_cas are not lowered, so those functions are rolled back with the
// location of what stopped the lowering; the mixed function is lowered (views, slices, affine ops and the scope
// inline) but its element write fences it to sub-block 0; the AIC function is lowered for the remark only (its
// tensor arguments stop it) and left as it is; the host function and the one already reading get_sub_block_idx
// get no remark (left alone).
// PASS-DAG: remark: @unary_forms: not lowered, rolled back: {{.*}}dialect_forms.mlir:[[#]]:1
// PASS-DAG: remark: @binary_forms: not lowered, rolled back: {{.*}}dialect_forms.mlir:[[#]]:1
// PASS-DAG: remark: @shape_forms: not lowered, rolled back: {{.*}}dialect_forms.mlir:[[#]]:1
// PASS-DAG: remark: @memory_forms: not lowered, rolled back: {{.*}}dialect_forms.mlir:[[#]]:3
// PASS-DAG: error: hivm.hir.atomic_cas: atomic_cas is not lowered: it compares GM values and returns the old ones
// PASS-DAG: remark: @cube_forms: AIC function not lowered, left as it is: {{.*}}dialect_forms.mlir:[[#]]:1
// PASS-DAG: remark: @mixed_vector_part: rolled back: the function has element writes
// PASS-NOT: remark: @sync_and_debug_forms
// PASS-NOT: remark: @host_side
