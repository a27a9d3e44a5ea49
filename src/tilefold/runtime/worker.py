"""``ChipWorker``: PyPTO's explicit-dispatch handle, on the simulator.

PyPTO's worker owns a device connection; tilefold's "device" is the simulator, so a worker holds the
tensors it allocated (``DeviceTensor``: host memory standing for resident device memory, never copied per
launch) and runs compiled programs on them. The rules PyPTO states are kept and checked: a ``DeviceTensor``
belongs to its worker, is freed explicitly (``close()`` frees what is left), cannot be used after it is
freed, and a worker refuses a program compiled for another platform.
"""

from __future__ import annotations

import itertools
import sys
from typing import Any

import numpy as np

from tilefold.errors import TilefoldError
from tilefold.runtime.arrays import as_numpy, is_array, write_back

_IDS = itertools.count(0x1000_0000, 0x1000)


def _np_dtype(dtype: Any) -> np.dtype:
    torch = sys.modules.get("torch")  # only when the caller uses torch: tilefold never imports it
    if torch is not None and isinstance(dtype, torch.dtype):
        return as_numpy(torch.zeros(1, dtype=dtype)).dtype
    np_dtype = getattr(dtype, "np_dtype", None)  # a tilefold DataType (pl.FP32)
    return np.dtype(np_dtype if np_dtype is not None else dtype)


class DeviceTensor:
    """A tensor resident on a worker's (simulated) device. ``data_ptr`` is its device address."""

    def __init__(self, worker: ChipWorker, array: np.ndarray) -> None:
        self._worker = worker
        self._array: np.ndarray | None = array
        self.data_ptr = next(_IDS)
        self.shape = tuple(array.shape)
        self.dtype = array.dtype
        self.nbytes = int(array.nbytes)

    def _tilefold_array(self) -> np.ndarray:
        if self._array is None:
            raise TilefoldError(f"DeviceTensor at 0x{self.data_ptr:x} was freed",
                                hint="allocate a new one with worker.alloc_tensor(...)")
        return self._array

    def numpy(self) -> np.ndarray:
        """A host copy of the contents."""
        return self._tilefold_array().copy()

    def __repr__(self) -> str:
        return f"DeviceTensor(shape={list(self.shape)}, dtype={self.dtype}, data_ptr=0x{self.data_ptr:x})"


class ChipWorker:
    """``ChipWorker(config=RunConfig(...))``: ``alloc_tensor`` / ``free_tensor`` / ``copy_from`` / ``copy_to``,
    ``run(compiled, *args)``, ``register(compiled)`` -> a callable handle, ``close()``; a context manager."""

    def __init__(self, config: Any = None, **kwargs: Any) -> None:
        from tilefold.runtime.config import RunConfig

        if kwargs:
            raise TilefoldError(f"ChipWorker got unexpected argument(s) {sorted(kwargs)}",
                                hint="ChipWorker(config=RunConfig(platform=...))")
        self.config = config if config is not None else RunConfig()
        if not isinstance(self.config, RunConfig):
            raise TilefoldError(f"ChipWorker(config=...) takes a RunConfig, got {type(self.config).__name__}",
                                hint="from tilefold.runtime import RunConfig")
        self._tensors: dict[int, DeviceTensor] = {}
        self._closed = False

    def __enter__(self) -> ChipWorker:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise TilefoldError("this ChipWorker is closed", hint="create a new ChipWorker")

    def alloc_tensor(self, shape: Any, dtype: Any = np.float32, init: Any = None) -> DeviceTensor:
        self._check_open()
        arr = np.zeros(tuple(int(s) for s in shape), _np_dtype(dtype))
        if init is not None:
            src = np.asarray(as_numpy(init) if is_array(init) else init)
            if src.shape != arr.shape:
                raise TilefoldError(f"alloc_tensor: init has shape {list(src.shape)}, not {list(arr.shape)}",
                                    hint="pass an init array of the allocated shape")
            arr[...] = src
        t = DeviceTensor(self, arr)
        self._tensors[t.data_ptr] = t
        return t

    def _own(self, t: Any, what: str) -> DeviceTensor:
        if isinstance(t, DeviceTensor):
            if t._worker is not self:
                raise TilefoldError(f"{what}: the DeviceTensor belongs to another ChipWorker",
                                    hint="a DeviceTensor is bound to the worker that allocated it")
            t._tilefold_array()
            return t
        found = self._tensors.get(t) if isinstance(t, int) else None
        if found is None:
            raise TilefoldError(f"{what}: {t!r} is not a live DeviceTensor (or its data_ptr) of this worker",
                                hint="allocate it with worker.alloc_tensor(...)")
        return found

    def free_tensor(self, t: DeviceTensor) -> None:
        t = self._own(t, "free_tensor")
        self._tensors.pop(t.data_ptr, None)
        t._array = None

    def copy_from(self, host: Any, src: Any, nbytes: int | None = None) -> None:
        """Copy a DeviceTensor (or its ``data_ptr``) into the host array ``host`` (``nbytes``: a prefix)."""
        dev = self._own(src, "copy_from")._tilefold_array()
        if isinstance(host, int) and not isinstance(host, bool):  # PyPTO's form: a raw host address
            return self._copy_to_host_address(host, dev, nbytes)
        out = as_numpy(host) if is_array(host) else host
        n = dev.nbytes if nbytes is None else int(nbytes)
        if n > dev.nbytes or n > out.nbytes:
            raise TilefoldError(f"copy_from: {n} bytes exceed the tensors ({dev.nbytes} / {out.nbytes} bytes)",
                                hint="copy at most t.nbytes bytes")
        flat = np.frombuffer(dev.tobytes()[:n], np.uint8)
        view = np.ascontiguousarray(out).view(np.uint8).reshape(-1)
        view[:n] = flat
        write_back(host, view.view(out.dtype).reshape(out.shape))

    @staticmethod
    def _copy_to_host_address(address: int, dev: np.ndarray, nbytes: int | None) -> None:
        """``copy_from(host_ptr, t.data_ptr, t.nbytes)``: ``host_ptr`` is the address of host memory the caller
        owns (``tensor.data_ptr()``, ``array.ctypes.data``), as with a device runtime's D2H copy."""
        import ctypes

        n = dev.nbytes if nbytes is None else int(nbytes)
        if address <= 0:
            raise TilefoldError(f"copy_from: host pointer {address:#x} is not an address",
                                hint="pass host_tensor.data_ptr() (torch) or array.ctypes.data (numpy)")
        if n < 0 or n > dev.nbytes:
            raise TilefoldError(f"copy_from: {n} bytes exceed the device tensor ({dev.nbytes} bytes)",
                                hint="copy at most t.nbytes bytes")
        src = np.ascontiguousarray(dev)
        ctypes.memmove(address, src.ctypes.data, n)

    def copy_to(self, dst: Any, host: Any) -> None:
        """Copy the host array ``host`` into a DeviceTensor."""
        dev = self._own(dst, "copy_to")._tilefold_array()
        src = np.asarray(as_numpy(host) if is_array(host) else host)
        if src.shape != dev.shape:
            raise TilefoldError(f"copy_to: shape {list(src.shape)} is not {list(dev.shape)}", hint="same shape")
        dev[...] = src

    def _check_platform(self, compiled: Any) -> None:
        if compiled.target.name != self.config.target:
            raise TilefoldError(f"the program was compiled for {compiled.target.name}, this worker runs "
                                f"{self.config.target}",
                                hint="compile for the platform you dispatch on")

    def run(self, compiled: Any, *args: Any) -> Any:
        self._check_open()
        self._check_platform(compiled)
        for a in args:
            if isinstance(a, DeviceTensor):
                self._own(a, "run")
        from tilefold.runtime.compiled import CompiledKernel

        return CompiledKernel.of(compiled)(*args, config=self.config)

    def register(self, compiled: Any) -> Any:
        """A handle that runs ``compiled`` on this worker: ``handle(*args)``."""
        self._check_open()
        self._check_platform(compiled)

        def handle(*args: Any) -> Any:
            return self.run(compiled, *args)

        return handle

    def close(self) -> None:
        for t in list(self._tensors.values()):
            t._array = None
        self._tensors.clear()
        self._closed = True


__all__ = ["ChipWorker", "DeviceTensor"]
