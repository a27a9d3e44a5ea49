// A type written for an operand must be the SSA value's own type (as in mlir-opt): an `outs(%x : T)`, `ins(...)`,
// bare-operand or bufferization.to_tensor annotation that disagrees is an error at the op, with a hint; the value's
// type is not silently taken instead. `tilefold run` on the same file reports the same located error. (Functions named
// @broken* are left out of the print-back test of tests/mlir/test_mlir_lowering.py.)
// RUN: tilefold mlir-opt %s -split-input-file -verify-diagnostics
// RUN: not tilefold mlir-opt %s -split-input-file 2>&1 | filecheck %s
// RUN: not tilefold run %s 2>&1 | filecheck %s --check-prefix=RUNERR

// CHECK: operand_types.mlir:18:3
// CHECK-NEXT: hivm.hir.load ins(%src
// CHECK: error: cannot parse MLIR: hivm.hir.load: use of value '%buf' expects different type than prior uses: 'memref<32x64xf16, #hivm.address_space<ub>>' vs 'memref<16x64xf32, #hivm.address_space<ub>>' (the outs(...) annotation
// CHECK: hint: write %buf's own type memref<16x64xf32, #hivm.address_space<ub>> in the annotation
// RUNERR: operand_types.mlir:18:3
// RUNERR: error: cannot parse MLIR: hivm.hir.load: use of value '%buf'
func.func @broken_outs_annotation(%src: memref<16x64xf32>, %dst: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32, #hivm.address_space<ub>>
  // expected-error @+1 {{use of value '%buf' expects different type than prior uses}}
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<32x64xf16, #hivm.address_space<ub>>)
  hivm.hir.store ins(%buf : memref<16x64xf32, #hivm.address_space<ub>>) outs(%dst : memref<16x64xf32>)
  return
}

// -----

// CHECK: operand_types.mlir:30:3
// CHECK: error: cannot parse MLIR: hivm.hir.vexp: ins(...) has 1 operand(s) and 2 type(s)
func.func @broken_type_count(%src: memref<16x64xf32>, %dst: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32, #hivm.address_space<ub>>
  // expected-error @+1 {{ins(...) has 1 operand(s) and 2 type(s)}}
  hivm.hir.vexp ins(%buf : memref<16x64xf32, #hivm.address_space<ub>>, f32) outs(%buf : memref<16x64xf32, #hivm.address_space<ub>>)
  return
}

// -----

// CHECK: operand_types.mlir:41:3
// CHECK: error: cannot parse MLIR: hivm.hir.bitcast: use of value '%ub' expects different type than prior uses: 'memref<16x64xi32, #hivm.address_space<ub>>' vs 'memref<16x64xf32, #hivm.address_space<ub>>' (the operand annotation
func.func @broken_bare_operand(%src: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %ub = memref.alloc() : memref<16x64xf32, #hivm.address_space<ub>>
  // expected-error @+1 {{use of value '%ub' expects different type}}
  %bits = hivm.hir.bitcast %ub : memref<16x64xi32, #hivm.address_space<ub>> -> memref<16x64xi32, #hivm.address_space<ub>>
  return
}

// -----

// CHECK: operand_types.mlir:51:3
// CHECK: error: cannot parse MLIR: bufferization.to_tensor: use of value '%m' expects different type
func.func @broken_to_tensor(%m: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  // expected-error @+1 {{bufferization.to_tensor: use of value '%m' expects different type}}
  %t = bufferization.to_tensor %m restrict : memref<16x32xf32>
  return
}
