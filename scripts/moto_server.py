"""Start moto server on a loopback port for trainwatch's tests and local mode.

Prints one line `READY <port>` once it answers, then serves until stdin closes
(the parent process exited) or SIGTERM. Running moto in-process lets us patch
what it does not emulate (see scripts/moto_patches.py).
"""

import faulthandler
import logging
import os
import signal
import socket
import sys
import threading
import urllib.request

from moto.server import ThreadedMotoServer

sys.path.insert(0, os.path.dirname(__file__))
import moto_patches  # noqa: E402


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    # `kill -USR1 <pid>` prints every thread's stack to stderr: how to see where the emulator is stuck.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    port = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] != "0" else free_port()
    # One log line per request costs time and, written to a pipe nobody drains, blocks every request thread.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    moto_patches.apply()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    urllib.request.urlopen(f"http://127.0.0.1:{port}/moto-api/", timeout=10).read()
    print(f"READY {port}", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    def watch_stdin() -> None:
        # The parent holds our stdin open; EOF means it is gone, so we go too.
        try:
            while sys.stdin.read(1024):
                pass
        finally:
            stop.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    stop.wait()
    server.stop()


if __name__ == "__main__":
    main()
