func.func @k(%a: memref<16x64xf32, #hivm.address_space<gm>>, %o: memref<16x64xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %buf = memref.alloc() : memref<16x64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%a : memref<16x64xf32, #hivm.address_space<gm>>) outs(%buf : memref<16x64xf32, #hivm.address_space<ub>>)
  %b2 = memref.alloc() : memref<16x64xf32, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%buf : memref<16x64xf32, #hivm.address_space<ub>>) outs(%b2 : memref<16x64xf32, #hivm.address_space<ub>>)
  hivm.hir.store ins(%b2 : memref<16x64xf32, #hivm.address_space<ub>>) outs(%o : memref<16x64xf32, #hivm.address_space<gm>>)
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  scf.execute_region {
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  }
  return
}
