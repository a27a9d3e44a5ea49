func.func @k(%a: memref<16x64xf32>, %o: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<1000000x1000000xf32>
  return
}
