// RUN: not tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file 2>&1 | filecheck %s
// RUN: tilefold mlir-opt %s -hivm-bind-sub-block -split-input-file -verify-diagnostics | filecheck %s --check-prefix=GOOD

// A malformed chunk is a located error; the other chunks are still processed.
// CHECK: errors.mlir:9:{{[0-9]+}}
// CHECK: error: cannot parse MLIR
func.func @broken(%a: memref<4xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  // expected-error @+1 {{cannot parse MLIR}}
  %x = arith.addi %a %a : index
  return
}

// -----

// GOOD-LABEL: func.func @fine
// GOOD: } {map_for_to_forall, mapping = [#hivm.sub_block<x>]}
func.func @fine(%src: memref<16x64xf32>, %dst: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%src : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  hivm.hir.store ins(%buf : memref<16x64xf32>) outs(%dst : memref<16x64xf32>)
  return
}
