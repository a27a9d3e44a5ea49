"""Run several participants phase by phase: every one runs up to its next barrier before any goes past it.

``PhasedRun(bodies).run()`` runs each body (a callable taking nothing) in its own thread, one thread at a time and
in index order (deterministic: no two run together, so no state they share needs a lock). A body that calls
``arrive()`` stops there; once every unfinished participant has arrived (or finished), ``on_release`` is called
with the indices that arrived and they all continue, again one after another. Used by the golden interpreter and
the simulator for PyPTO's in-kernel barrier (``pl.system.syncall``): the participants are the blocks of one launch.

- A body that raises ends the run: the other participants are unwound (each raises ``Aborted`` where it waits,
  which the runner swallows) and the exception is raised from ``run()``.
- Some participants waiting at a barrier that others finished without reaching is a deadlock on a device:
  ``on_deadlock(waiting, finished)`` builds the exception ``run()`` raises.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

_current = threading.local()


class Aborted(BaseException):
    """Raised inside a waiting participant when the run is abandoned (another participant failed)."""


class PhasedRun:
    def __init__(self, bodies: list[Callable[[], None]], on_release: Callable[[list[int]], None],
                 on_deadlock: Callable[[list[int], list[int]], BaseException]) -> None:
        self.bodies = bodies
        self.on_release = on_release
        self.on_deadlock = on_deadlock
        n = len(bodies)
        self._resume = [threading.Semaphore(0) for _ in range(n)]
        self._back = threading.Semaphore(0)
        self._state = ["ready"] * n  # ready | arrived | finished | failed
        self._error: BaseException | None = None
        self._abort = False
        self._threads: list[threading.Thread] = []
        self.generation = 0  # barriers released so far

    # ----------------------------------------------------------------------------------------- participants
    @staticmethod
    def current() -> tuple[PhasedRun, int] | None:
        """The run and participant index of the calling thread, when it is a participant."""
        return getattr(_current, "slot", None)

    def arrive(self, index: int) -> None:
        """Participant ``index`` reached a barrier: hand control back and wait for the release."""
        self._state[index] = "arrived"
        self._back.release()
        self._resume[index].acquire()
        if self._abort:
            raise Aborted()

    def _main(self, index: int) -> None:
        _current.slot = (self, index)
        self._resume[index].acquire()
        try:
            if self._abort:
                return
            self.bodies[index]()
            self._state[index] = "finished"
        except Aborted:
            self._state[index] = "finished"
            return
        except BaseException as exc:  # noqa: BLE001  # handed to the caller of run()
            self._state[index] = "failed"
            self._error = exc
        finally:
            _current.slot = None
        self._back.release()

    # ----------------------------------------------------------------------------------------- the runner
    def run(self) -> None:
        self._threads = [threading.Thread(target=self._main, args=(i,), daemon=True) for i in range(len(self.bodies))]
        for t in self._threads:
            t.start()
        try:
            self._phases()
        finally:
            self._unwind()

    def _phases(self) -> None:
        while True:
            for i, state in enumerate(self._state):
                if state in ("ready", "arrived"):
                    self._state[i] = "running"
                    self._resume[i].release()
                    self._back.acquire()
                    if self._error is not None:
                        raise self._error
            waiting = [i for i, s in enumerate(self._state) if s == "arrived"]
            if not waiting:
                return
            finished = [i for i, s in enumerate(self._state) if s == "finished"]
            if finished:
                raise self.on_deadlock(waiting, finished)
            self.generation += 1
            self.on_release(waiting)

    def _unwind(self) -> None:
        """Let every thread still waiting end (raising ``Aborted`` in it), then join them all."""
        self._abort = True
        for i, t in enumerate(self._threads):
            while t.is_alive():  # a thread still running (an interrupted run) may reach a barrier later: wake it
                self._resume[i].release()
                t.join(timeout=0.05)


def barrier_slot() -> tuple[Any, int] | None:
    """``(run, index)`` of the calling thread when it is a participant of a ``PhasedRun``, else None."""
    return PhasedRun.current()


__all__ = ["Aborted", "PhasedRun", "barrier_slot"]
