
import tilefold.language as pl
from tilefold.passes.memory_planning.allocate_memory_addr import plan_memory
from tilefold.passes.memory_planning.memref_common import tile_vars


def kernel_src(params: str, body: str, name: str = "K", ret: str = "pl.Tensor[[16, 64], pl.FP32]",
               func_type: str = "InCore") -> str:
    lines = [f"        {ln}" if ln.strip() else "" for ln in body.strip("\n").splitlines()]
    return (
        "import tilefold.language as pl\n\n@pl.program\n"
        f"class {name}:\n"
        f"    @pl.function(type=pl.FunctionType.{func_type})\n"
        f"    def kernel(self, {params}) -> {ret}:\n" + "\n".join(lines) + "\n"
    )


def planned(src: str, target: str = "Ascend910B"):
    prog = pl.parse(src)
    return plan_memory(prog, target)


def memrefs(program) -> dict:
    fn = program.functions[0]
    return {v.name: v.type.memref for v, _ in tile_vars(fn)}


