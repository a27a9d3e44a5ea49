// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file | filecheck %s
// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file --remarks -o %t 2>&1 | filecheck %s --check-prefix=REMARK

// Valid MLIR in the less common spellings an MLIR engineer writes: every chunk parses; a construct that is not
// lowered rolls its function back with the error at the op, and the other chunks still print.

// Locations in every form (inline, fused, callsite, unknown, and an alias defined after its use, where mlir-opt
// prints it), unknown dialect attributes on the module, the function and an argument, and an alloc attribute: read
// and dropped (locations) or kept (attributes); the function splits.
// CHECK-LABEL: module attributes {hacc.target = #hacc.target<"Ascend910B1">, other.flag = #other.thing<"x", 3>}
// CHECK: func.func @located(%a: memref<16x64xf32> {other.arg = 1 : i32}, %o: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>, other.attr = #other.thing<{a = [1, 2]}>}
// CHECK: scf.for %sb =
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<8x64xf32>
// CHECK: hivm.hir.store {{.*}} {tiled_op}
// REMARK: remark: @located: split on axis 0
module attributes {hacc.target = #hacc.target<"Ascend910B1">, other.flag = #other.thing<"x", 3>} {
  func.func @located(%a: memref<16x64xf32> {other.arg = 1 : i32}, %o: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>, other.attr = #other.thing<{a = [1, 2]}>} {
    %buf = memref.alloc() {alignment = 64 : i64} : memref<16x64xf32> loc(#loc1)
    hivm.hir.load ins(%a : memref<16x64xf32>) outs(%buf : memref<16x64xf32>) loc(fused["a.py":1:2, "b.py":3:4])
    %t = bufferization.to_tensor %buf restrict writable : memref<16x64xf32> to tensor<16x64xf32> loc("k.py":3:4)
    %e = tensor.empty() : tensor<16x64xf32>
    %y = hivm.hir.vexp ins(%t : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32> loc(callsite("f" at "g.py":1:1))
    hivm.hir.store ins(%y : tensor<16x64xf32>) outs(%o : memref<16x64xf32>) loc(#loc2)
    return loc(unknown)
  } loc(#loc)
} loc(#loc)
#loc = loc("kernel.py":1:1)
#loc1 = loc("kernel.py":10:2)
#loc2 = loc(fused[#loc, #loc1])

// -----   
// A separator with trailing blanks; a constant of every scalar type (and a dense splat one, a fill): nothing is
// stored, so the pass leaves the function as it is.
// CHECK-LABEL: func.func @constants
// CHECK: %b = arith.constant -3 : i8
// CHECK: %h = arith.constant 0x7fc00000 : f32
// CHECK: %i = arith.constant 1.000000e+00 : bf16
// CHECK: %m = arith.constant dense<0.000000e+00> : tensor<4xf32>
// REMARK: remark: @constants: rolled back: the pass left the function unchanged
// (tests/lit/mlir/dynamic_windows_refused.mlir has the dense constants that are refused)
func.func @constants() attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %a = arith.constant 1 : i1
  %b = arith.constant -3 : i8
  %c = arith.constant 7 : i16
  %d = arith.constant 70000 : i32
  %e = arith.constant 9223372036854775807 : i64
  %f = arith.constant 1.5 : f16
  %g = arith.constant 2.5e-3 : f32
  %h = arith.constant 0x7FC00000 : f32
  %i = arith.constant 1.0 : bf16
  %j = arith.constant -0.0 : f64
  %k = arith.constant true
  %l = arith.constant 5 : index
  %n = arith.constant 0xFF800000 : f32
  %m = arith.constant dense<0.0> : tensor<4xf32>
  return
}

// -----
// scf.for with several iter_args and index casts (signed and unsigned), one with its single result type written
// without parentheses, a #map alias used by affine.apply, and an unregistered op in the generic form: the loops
// print back (the single result parenthesized, as mlir-opt prints it); the generic op is kept and named in the
// rollback remark.
// CHECK-LABEL: func.func @loops
// CHECK: %r:2 = scf.for %i = %c0 to %ni step %c1 iter_args(%acc = %z, %k = %c0) -> (i32, index) {
// CHECK: arith.index_castui %k2 : index to i32
// CHECK: %r2 = scf.for %i_1 = %c0 to %ni step %c1 iter_args(%acc_1 = %z) -> (i32) {
// CHECK: affine.apply #map(%r#1)
// CHECK: "other.use"(%r#0, %r2, %q) {some = "thing"} : (i32, i32, index) -> ()
// REMARK: remark: @loops: not lowered, rolled back: {{.*}}hostile_syntax.mlir:90:3
// REMARK: error: other.use: this op is not lowered to tilefold
#m2 = affine_map<(d0) -> (d0 * 2 + 1)>
func.func @loops(%n: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ni = arith.index_cast %n : i32 to index
  %z = arith.constant 0 : i32
  %r:2 = scf.for %i = %c0 to %ni step %c1 iter_args(%acc = %z, %k = %c0) -> (i32, index) {
    %ii = arith.index_cast %i : index to i32
    %k2 = arith.addi %k, %c1 : index
    %ku = arith.index_castui %k2 : index to i32
    %s = arith.addi %acc, %ku : i32
    scf.yield %s, %k2 : i32, index
  }
  %r2 = scf.for %i = %c0 to %ni step %c1 iter_args(%acc = %z) -> i32 {
    %s = arith.addi %acc, %n : i32
    scf.yield %s : i32
  }
  %q = affine.apply #m2(%r#1)
  "other.use"(%r#0, %r2, %q) {some = "thing"} : (i32, i32, index) -> ()
  return
}

// -----
// A private declaration beside an AIV function, an scf.for over i32 bounds, memref.cast and a func.call: all read
// and printed back; memref.alloca is a buffer, but memref.cast to a dynamic shape is not lowered: rolled back there.
// CHECK-LABEL: func.func private @helper(memref<?xf32>, index) -> i32 attributes {hacc.function_kind = #hacc.function_kind<HOST>}
// CHECK: func.func @typed_loop
// CHECK: scf.for %i = %lb to %ub step %c1 : i32 {
// CHECK: %cast = memref.cast %m : memref<4xf32> to memref<?xf32>
// CHECK: func.call @helper(%cast, %c0) : (memref<?xf32>, index) -> i32
// REMARK: remark: @typed_loop: not lowered, rolled back: {{.*}}hostile_syntax.mlir:111:3
// REMARK: error: memref.cast: this op is not lowered to tilefold
func.func private @helper(memref<?xf32>, index) -> i32 attributes {hacc.function_kind = #hacc.function_kind<HOST>}
func.func @typed_loop(%lb: i32, %ub: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>, hivm.part_of_mix} {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %ix = arith.index_castui %i : i32 to index
  }
  %m = memref.alloca() : memref<4xf32>
  %cast = memref.cast %m : memref<4xf32> to memref<?xf32>
  %c0 = arith.constant 0 : index
  %f = func.call @helper(%cast, %c0) : (memref<?xf32>, index) -> i32
  return
}
