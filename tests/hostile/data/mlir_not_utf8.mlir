func.func @k(%a: memref<16x64xf32>, %o: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32>
  hivm.hir.load ins(%a : memref<16x64xf32>) outs(%buf : memref<16x64xf32>)
  hivm.hir.store ins(%buf : memref<16x64xf32>) outs(%o : memref<16x64xf32>)
  return
}
ÿþ€ bad
