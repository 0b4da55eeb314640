"""A training process for test_sigterm.py: `python _sigterm_child.py RUN_ID BUCKET MODE`.

MODE: `default` (no SIGTERM handler of its own), `exit` (its handler exits with 3), or `graceful`
(its handler asks the loop to stop, and the script then ends normally).
"""

import signal
import sys
import time

import trainwatch

run_id, bucket, mode = sys.argv[1:4]
stop = False


def user_handler(signum, frame):
    global stop
    print("user handler ran", flush=True)
    if mode == "exit":
        sys.exit(3)
    stop = True


if mode != "default":
    signal.signal(signal.SIGTERM, user_handler)

with trainwatch.watch(run_id, bucket, interval=0.05, flush_timeout=5) as run:
    step = 0
    while not stop:
        run.progress(step, total_steps=1_000_000)
        if step == 10:
            print("READY", flush=True)
        step += 1
        time.sleep(0.01)
print("left the with block", flush=True)
