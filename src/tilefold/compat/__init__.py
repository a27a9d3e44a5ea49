"""PyPTO-shaped entry points over tilefold's layers: ``ir.compile`` / ``ir.serialize`` / ``ir.deserialize``
(``ir_compile``), ``ir.pass_manager`` (``pass_manager``). The PyPTO module paths inside lower packages
(``tilefold.ir.pass_manager``, the ``ir.compile`` names of ``tilefold.ir``) forward here; nothing inside
tilefold imports those faces."""
