"""Start MiniStack (run with .tools/ministack/bin/python) for trainwatch's deployment test and local --deployed.

The caller sets its environment (BIND_HOST=127.0.0.1, GATEWAY_PORT, USE_SSL, AUTH, TMPDIR: see
local/deployed.ts). MiniStack serves until SIGTERM, or until stdin closes: the parent that started it is gone,
so no emulator outlives its test run.
"""

import os
import runpy
import signal
import sys
import threading


def watch_stdin() -> None:
    try:
        while sys.stdin.buffer.read(1024):
            pass
    finally:
        os.kill(os.getpid(), signal.SIGTERM)


if __name__ == "__main__":
    threading.Thread(target=watch_stdin, daemon=True).start()
    sys.argv = ["ministack"]
    runpy.run_module("ministack", run_name="__main__", alter_sys=True)
