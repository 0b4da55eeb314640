"""SIGTERM (spot interruption, `scancel`, shutdown): record it, then behave exactly as before we came."""

from __future__ import annotations

import logging
import os
import signal
import threading
from types import FrameType
from typing import Any, Callable, Optional

log = logging.getLogger("trainwatch")


class SigtermHook:
    """Runs `record()` on SIGTERM, then hands the signal to the handler that was installed before.

    That is the user's own handler when there is one (it may save a checkpoint and exit), else the
    default action: the process dies of SIGTERM, with the exit status schedulers expect (143).
    """

    def __init__(self, record: Callable[[Optional[FrameType]], None]) -> None:
        self._record = record
        self._previous: Any = None
        self._handler = self._handle  # one bound method, so we can recognise it later
        self._installed = False

    def install(self) -> bool:
        """Installs the hook; False where Python allows no handler (not the main thread) or SIGTERM is ignored."""
        if threading.current_thread() is not threading.main_thread():
            log.debug("trainwatch: not on the main thread, so SIGTERM is not recorded")
            return False
        previous = signal.getsignal(signal.SIGTERM)
        if previous is signal.SIG_IGN:
            return False
        self._previous = previous
        signal.signal(signal.SIGTERM, self._handler)
        self._installed = True
        return True

    def uninstall(self) -> None:
        """Puts the previous handler back, unless someone replaced ours meanwhile (then theirs stays)."""
        if not self._installed or threading.current_thread() is not threading.main_thread():
            return
        self._installed = False
        if signal.getsignal(signal.SIGTERM) == self._handler:
            signal.signal(signal.SIGTERM, self._previous if self._previous is not None else signal.SIG_DFL)

    def _handle(self, signum: int, frame: Optional[FrameType]) -> Any:
        try:
            self._record(frame)
        except Exception:  # recording must never stop the signal from doing its job
            log.exception("trainwatch: could not record SIGTERM")
        previous = self._previous
        self.uninstall()
        if callable(previous):
            return previous(signum, frame)
        # SIG_DFL, or a handler set outside Python (None): die of the signal, as we would have without trainwatch.
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return None
