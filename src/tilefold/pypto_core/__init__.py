"""PyPTO's ``pypto_core`` package (its native core): ``from tilefold.pypto_core import passes`` is PyPTO's pass
module on tilefold (``tilefold.compat.passes``). A face package: nothing inside tilefold imports it."""
