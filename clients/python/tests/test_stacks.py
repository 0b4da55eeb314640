"""Protocol v1.2: the stacks of a stuck training thread, `stacks/{node_rank}.json`, against the moto server."""

from __future__ import annotations

import json
import logging
import os
import statistics
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Optional

import boto3
import pytest
from botocore.config import Config

import trainwatch
import trainwatch._stacks as stacks
from _support import RunFiles, wait_for
from test_protocol_schema import REPO
from trainwatch._gpus import GpuSampler
from trainwatch._node import NodeBeat
from trainwatch._stacks import MAX_BYTES, MAX_FRAMES, MAX_THREADS, StackWatch, capture, parse_after

FAST = {"interval": 0.05, "flush_timeout": 5.0, "handle_sigterm": False}
KEY = "stacks/0.json"


@pytest.fixture(autouse=True)
def no_gpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """No NVML and no nvidia-smi: node files carry timing only, whatever the machine has."""
    monkeypatch.setitem(sys.modules, "pynvml", None)
    monkeypatch.setattr(GpuSampler, "_choose", lambda self: "none")
    for name in ("TRAINWATCH_STACKS", "TRAINWATCH_STACK_AFTER"):
        monkeypatch.delenv(name, raising=False)


class Trainer:
    """A training loop on a thread of its own: a few progress() calls, then blocked on `gate` until it is set."""

    def __init__(self, run: trainwatch.Run, steps: int = 3) -> None:
        self.run, self.steps = run, steps
        self.gate = threading.Event()
        self.blocked_at: Optional[int] = None  # this file's line of the blocking call
        self.error: Optional[BaseException] = None
        self.thread = threading.Thread(target=self._loop, name="trainer", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        try:
            for step in range(self.steps):
                self.run.progress(step, samples=8)
            self.blocked_at = sys._getframe().f_lineno + 1
            self.gate.wait()
            self.run.progress(self.steps, samples=8)
        except BaseException as error:  # a test thread must report, not vanish
            self.error = error

    def release(self) -> None:
        self.gate.set()
        self.thread.join(10)
        assert not self.thread.is_alive() and self.error is None


def recorded_client(endpoint: str, ops: list[tuple[str, str]]) -> Any:
    """An S3 client that records (operation, key) of every write and delete it sends."""
    client = boto3.client("s3", endpoint_url=endpoint, config=Config(s3={"addressing_style": "path"}))

    def record(params: dict, model: Any, **_: Any) -> None:
        ops.append((model.name, params["Key"]))

    for op in ("PutObject", "DeleteObject"):
        client.meta.events.register(f"before-parameter-build.s3.{op}", record)
    return client


def stack_ops(ops: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(op, key.rsplit("/", 2)[-2] + "/" + key.rsplit("/", 1)[-1]) for op, key in ops if "/stacks/" in key]


def test_a_stuck_training_thread_gets_its_stacks_written_rewritten_and_deleted_at_its_next_progress(
    bucket: str, run_id: str, files: RunFiles, moto_endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    monkeypatch.setattr(stacks, "REWRITE_EVERY", 0.3)
    ops: list[tuple[str, str]] = []
    with trainwatch.watch(run_id, bucket, stack_after=0.2, s3_client=recorded_client(moto_endpoint, ops),
                          **FAST) as run:
        trainer = Trainer(run)
        first = wait_for(lambda: files.json(KEY), what="the stacks file")
        training = first["threads"][0]
        assert training["name"] == "trainer" and training["training"] is True and training["daemon"] is True
        assert [t["training"] for t in first["threads"]].count(True) == 1
        assert any(t["name"] == "MainThread" and not t["training"] for t in first["threads"])
        # Innermost last: the blocking call itself, inside threading's Event.wait, then the caller's line.
        innermost = training["frames"][-1]
        assert innermost["file"].endswith("threading.py") and innermost["function"] == "wait"
        assert "acquire(" in innermost["code"]  # Condition.wait, inside Event.wait
        caller = [f for f in training["frames"] if f["file"] == __file__][-1]
        assert caller == {"file": __file__, "line": trainer.blocked_at, "function": "_loop",
                          "code": "self.gate.wait()"}
        assert first["node_rank"] == 0 and first["step"] == 2 and first["pid"] == os.getpid()
        assert first["stuck_s"] >= 0.2 and first["captured_at"].endswith("Z") and first["truncated"] is False
        assert_the_watchdog_reads(tmp_path, files.text(KEY).encode(), rank=0)  # type: ignore[union-attr]
        # Still stuck: rewritten, with a later capture time and a longer stuck time.
        second = wait_for(lambda: (s := files.json(KEY)) and s["captured_at"] != first["captured_at"] and s,
                          what="the stacks file rewritten")
        assert second["stuck_s"] > first["stuck_s"] and second["step"] == 2
        trainer.release()  # its one progress() call
        wait_for(lambda: ("DeleteObject", KEY) in stack_ops(ops), what="the stacks file's DELETE")
        before = stack_ops(ops)[: stack_ops(ops).index(("DeleteObject", KEY))]
        assert len(before) >= 2 and set(before) == {("PutObject", KEY)}
        # Calls from here on keep the thread fresh, so no new capture races the check.
        wait_for(lambda: run.progress(4) or KEY not in files.keys(), what="the stacks file gone")


def test_before_the_first_progress_call_the_thread_that_started_the_client_is_the_training_thread(
    bucket: str, run_id: str, files: RunFiles
):
    with trainwatch.watch(run_id, bucket, stack_after=0.1, **FAST) as run:
        body = wait_for(lambda: files.json(KEY), what="the stacks file")
        wait_for(lambda: run.progress(0) or KEY not in files.keys(), what="the stacks file deleted")
    assert body["step"] is None
    training = body["threads"][0]
    assert training["training"] and training["name"] == threading.current_thread().name
    assert any(f["function"] == "wait_for" for f in training["frames"])


def test_a_run_that_ends_well_after_a_pause_leaves_no_stacks_and_one_that_fails_keeps_them(
    bucket: str, s3: Any, monkeypatch: pytest.MonkeyPatch
):
    outcomes = {}
    for name, error in (("good", None), ("bad", RuntimeError("NCCL watchdog timeout"))):
        run_id = f"ending-{name}-{os.getpid()}"
        files = RunFiles(s3, bucket, run_id)
        run = trainwatch.watch(run_id, bucket, stack_after=0.1, **FAST).start()
        run.progress(1)
        wait_for(lambda: files.json(KEY), what="the stacks of a final pause")  # a last evaluation, a final save
        run.finish(error)
        outcomes[name] = (KEY in files.keys(), "_complete" in files.keys(), "_error" in files.keys())
    assert outcomes == {"good": (False, True, False), "bad": (True, False, True)}


def test_nothing_is_captured_or_sent_while_progress_flows(
    bucket: str, run_id: str, files: RunFiles, moto_endpoint: str, monkeypatch: pytest.MonkeyPatch
):
    captures: list[int] = []
    real = stacks.capture
    monkeypatch.setattr(stacks, "capture", lambda *a: captures.append(1) or real(*a))
    ops: list[tuple[str, str]] = []
    done = threading.Event()
    # A second apart at most, under a threshold of 2 s: a loaded machine would need a 1 s stall to capture.
    with trainwatch.watch(run_id, bucket, stack_after=2.0, s3_client=recorded_client(moto_endpoint, ops),
                          **FAST) as run:
        for step in range(40):
            run.progress(step, samples=8)
            done.wait(0.02)
        nodes_written = sum(1 for op, key in ops if key.endswith("nodes/0.json"))
    assert captures == [] and stack_ops(ops) == []
    assert nodes_written >= 3  # the writer polled many times meanwhile
    assert KEY not in files.keys()


def test_the_watch_decides_from_the_time_since_the_last_call_and_never_below_three_p99_gaps(
    monkeypatch: pytest.MonkeyPatch,
):
    """The writer's decisions, with time as an argument: no capture while calls come, samples from half of the
    threshold on, a capture once the thread is overdue, a rewrite per period, one delete at the next call."""
    sampled: list[Optional[int]] = []
    monkeypatch.setattr(stacks, "signature", lambda ident: sampled.append(ident) or (("train.py", 9, "step"),))
    node = NodeBeat(0, 1, gpus=GpuSampler(which=lambda _: None))
    worker = FakeWorker()
    watch = StackWatch(node, lambda: worker, after=120.0, rewrite_every=300.0)
    watch.begin(1000.0, threading.get_ident())
    t = 1000.0
    for step in range(50):  # a call every 80 s, one of 95 s: the threshold is 3 x 95 s (the p99), not 120 s
        t += 95.0 if step == 30 else 80.0
        node.record(t, step, {})
        assert watch.poll(t + 79.0) > 0 and worker.ops == []
    sampled.clear()  # the first steps had no history yet (120 s, then 3 x the median gap)
    assert watch.in_force() == 285.0
    assert watch.poll(t + 137.5) == pytest.approx(5.0) and sampled == []  # samples from half of 285 s
    assert watch.poll(t + 142.5) == pytest.approx(2.0) and len(sampled) == 1 and worker.ops == []
    assert watch.poll(t + 143.5) == pytest.approx(1.0) and len(sampled) == 1  # one sample per 2 s
    at = t + 144.5
    while at < t + 285.0:
        watch.poll(at)
        at += 2.0
    assert worker.ops == [] and len(sampled) == 72
    assert watch.poll(t + 285.0) == pytest.approx(1.5)  # the next sample is due in 1.5 s
    assert [op for op, _ in worker.ops] == ["put"] and watch.out
    body = json.loads(worker.ops[0][1])
    assert body["stuck_s"] == 285.0 and body["step"] == 49 and body["moving"] is False
    assert watch.poll(t + 295.0) == pytest.approx(2.0) and len(worker.ops) == 1  # still sampling while stuck
    watch.poll(t + 585.0)
    assert [op for op, _ in worker.ops] == ["put", "put"] and json.loads(worker.ops[1][1])["stuck_s"] == 585.0
    node.record(t + 600.0, 50, {})
    watch.poll(t + 600.0)
    assert [op for op, _ in worker.ops] == ["put", "put", "delete"] and not watch.out
    count = len(sampled)
    assert watch.poll(t + 601.0) == pytest.approx(59.0)  # half of 120 s after the call: nothing to sample
    assert len(worker.ops) == 3 and len(sampled) == count


def test_stack_after_follows_the_cadence_leaving_out_the_first_calls_and_before_it_the_median_gap():
    node = NodeBeat(0, 1, gpus=GpuSampler(which=lambda _: None))
    watch = StackWatch(node, lambda: FakeWorker(), after=stacks.DEFAULT_AFTER)
    assert stacks.DEFAULT_AFTER == 60.0 and watch.in_force() == 60.0  # no call yet
    t = 0.0
    for step, gap in enumerate([600.0, 300.0, 30.0, 30.0]):  # compile and warm-up: calls 1 to 5
        t += gap
        node.record(t, step, {})
    # Before a cadence (10 gaps from the 5th call on): 3 times the median gap of the calls so far.
    assert node.cadence() is None and watch.in_force() == 3 * statistics.median([300.0, 30.0, 30.0])
    for step in range(4, 14):  # the 5th call, then 9 gaps of 20 s: still no cadence
        t += 20.0
        node.record(t, step, {})
    assert node.cadence() is None
    t += 25.0
    node.record(t, 14, {})  # the 10th gap
    assert node.cadence() == (20.0, 25.0, 10) and watch.in_force() == 75.0  # 3 x the p99, over 60 s
    for step in range(15, 1000):  # 0.5 s steps: the default holds
        t += 0.5
        node.record(t, step, {})
    assert node.cadence() == (0.5, 0.5, 512) and watch.in_force() == 60.0
    explicit = StackWatch(node, lambda: FakeWorker(), after=1.0)  # an explicit threshold: floored at 3 x p99
    assert explicit.in_force() == 1.5
    for step in range(1000, 1600):  # 4-minute steps: 3 x p99 would be 12 minutes, past a 10-minute NCCL watchdog
        t += 240.0
        node.record(t, step, {})
    assert watch.in_force() == stacks.PACE_CAP == 300.0
    assert StackWatch(node, lambda: FakeWorker(), after=900.0).in_force() == 900.0  # an explicit one is the user's


def test_moving_says_whether_the_stuck_thread_moved_in_the_last_10_s(monkeypatch: pytest.MonkeyPatch):
    """Samples every 2 s from half of stack_after: all equal (≥ 3) is a hang, any two different a long loop
    (an evaluation), fewer than 3 say nothing; the same again at each rewrite."""

    def stuck_then(signatures: Callable[[float], Any], after: float = 60.0) -> list[dict[str, Any]]:
        clock = {"now": 0.0}
        monkeypatch.setattr(stacks, "signature", lambda ident: signatures(clock["now"]))
        node = NodeBeat(0, 1, gpus=GpuSampler(which=lambda _: None))
        worker = FakeWorker()
        watch = StackWatch(node, lambda: worker, after=after, rewrite_every=300.0)
        watch.begin(0.0, threading.get_ident())
        node.record(0.0, 7, {})
        now = 0.0
        while now < 400.0:  # the writer polls when it asked to
            clock["now"] = now
            now += watch.poll(now)
        return [json.loads(body) for op, body in worker.ops if op == "put"]

    hang = stuck_then(lambda now: (("train.py", 18, "step"), ("distributed_c10d.py", 2806, "all_reduce")))
    assert [(b["stuck_s"], b["moving"]) for b in hang] == [(60.0, False), (360.0, False)]
    evaluation = stuck_then(lambda now: (("train.py", 40 + int(now) % 3, "evaluate"),))
    assert [(b["stuck_s"], b["moving"]) for b in evaluation] == [(60.0, True), (360.0, True)]
    # Moving early, then still: the last 10 s decide.
    stopped = stuck_then(lambda now: (("train.py", 40 + (int(now) % 3 if now < 45 else 0), "evaluate"),))
    assert [b["moving"] for b in stopped] == [False, False]
    # stack_after 3 s: sampling from 1.5 s on gives 1 sample by the capture, too few to say.
    short = stuck_then(lambda now: (("train.py", 18, "step"),), after=3.0)
    assert "moving" not in short[0] and short[1]["moving"] is False


def test_a_stack_signature_is_where_the_thread_is_now():
    gate = threading.Event()
    thread = threading.Thread(target=gate.wait, daemon=True)
    thread.start()
    wait_for(lambda: _in_event_wait(thread.ident), what="the thread blocked")
    first, second = stacks.signature(thread.ident), stacks.signature(thread.ident)
    assert first == second and first[0][2] == "wait" and first[0][0].endswith("threading.py")  # type: ignore[index]
    here = stacks.signature(threading.get_ident())
    assert here is not None and here[0][2] == "signature"
    assert here[1][2] == "test_a_stack_signature_is_where_the_thread_is_now"
    gate.set()
    thread.join(10)
    assert stacks.signature(thread.ident) is None


class FakeWorker:
    def __init__(self) -> None:
        self.ops: list[tuple[str, Any]] = []

    def put(self, name: str, body: bytes) -> None:
        assert name == KEY
        self.ops.append(("put", body))

    def delete(self, name: str) -> None:
        assert name == KEY
        self.ops.append(("delete", None))


@pytest.mark.parametrize("off", [{"env": "0"}, {"arg": False}], ids=["TRAINWATCH_STACKS=0", "stacks=False"])
def test_stacks_can_be_turned_off(bucket: str, run_id: str, files: RunFiles, monkeypatch: pytest.MonkeyPatch,
                                  off: dict[str, Any]):
    if "env" in off:
        monkeypatch.setenv("TRAINWATCH_STACKS", off["env"])
    options = {"stacks": off["arg"]} if "arg" in off else {}
    with trainwatch.watch(run_id, bucket, stack_after=0.05, **options, **FAST) as run:
        assert run._stacks is None
        run.progress(1)
        run.progress(2)
        # Well past the threshold (the node file's step time says how long since the last call), node files going out.
        wait_for(lambda: (n := files.json("nodes/0.json")) and n.get("step_time_s", 0) >= 0.3, what="node files")
    assert not any(k.startswith("stacks/") for k in files.keys())


def test_only_the_process_that_writes_the_node_file_writes_stacks(bucket: str, run_id: str, files: RunFiles,
                                                                  monkeypatch: pytest.MonkeyPatch):
    for env, node in (({"RANK": "8", "LOCAL_RANK": "0", "GROUP_RANK": "1", "LOCAL_WORLD_SIZE": "8"}, 1),
                      ({"RANK": "9", "LOCAL_RANK": "1", "GROUP_RANK": "1", "LOCAL_WORLD_SIZE": "8"}, None)):
        with monkeypatch.context() as m:
            for name, value in env.items():
                m.setenv(name, value)
            run = trainwatch.watch(run_id, bucket, stack_after="30s", **FAST)
        assert run.node_rank == node and (run._stacks is not None) == (node is not None)
    with monkeypatch.context() as m:
        m.setenv("RANK", "8")
        m.setenv("LOCAL_RANK", "0")
        m.setenv("GROUP_RANK", "1")
        m.setenv("LOCAL_WORLD_SIZE", "8")
        with trainwatch.watch(run_id, bucket, stack_after=0.1, **FAST) as run:
            body = wait_for(lambda: files.json("stacks/1.json"), what="node 1's stacks")
            wait_for(lambda: run.progress(5) or "stacks/1.json" not in files.keys(), what="node 1's stacks deleted")
    assert body["node_rank"] == 1


def test_stack_after_takes_seconds_or_a_duration_from_the_argument_or_the_environment(
    bucket: str, run_id: str, monkeypatch: pytest.MonkeyPatch
):
    assert [parse_after(v) for v in (90, 1.5, "45", "90s", "2m", "1h", " 500ms ")] == [90, 1.5, 45, 90, 120, 3600, 0.5]
    for bad in ("0", -1, "soon", "2 days", "", True, float("inf")):
        with pytest.raises(ValueError, match="stack_after"):
            parse_after(bad)
    assert trainwatch.watch(run_id, bucket)._stacks.after == 60  # type: ignore[union-attr]
    monkeypatch.setenv("TRAINWATCH_STACK_AFTER", "2m")
    assert trainwatch.watch(run_id, bucket)._stacks.after == 120  # type: ignore[union-attr]
    monkeypatch.setenv("TRAINWATCH_STACK_AFTER", "5m")
    assert trainwatch.watch(run_id, bucket)._stacks.after == 300  # type: ignore[union-attr]
    assert trainwatch.watch(run_id, bucket, stack_after=45)._stacks.after == 45  # type: ignore[union-attr]
    monkeypatch.setenv("TRAINWATCH_STACK_AFTER", "later")
    with pytest.raises(ValueError, match="TRAINWATCH_STACK_AFTER"):
        trainwatch.watch(run_id, bucket)
    monkeypatch.setenv("TRAINWATCH_STACKS", "0")  # off: nothing to configure
    assert trainwatch.watch(run_id, bucket)._stacks is None


def test_a_capture_that_raises_never_reaches_training(bucket: str, run_id: str, files: RunFiles,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      caplog: pytest.LogCaptureFixture):
    calls: list[str] = []

    def broken(*_: Any) -> bytes:
        calls.append(threading.current_thread().name)
        raise RuntimeError("frames went missing")

    monkeypatch.setattr(stacks, "capture", broken)
    monkeypatch.setattr(stacks, "REWRITE_EVERY", 0.1)
    with caplog.at_level(logging.WARNING, logger="trainwatch"):
        with trainwatch.watch(run_id, bucket, stack_after=0.1, **FAST) as run:
            trainer = Trainer(run)
            wait_for(lambda: len(calls) >= 3, what="capture tried and retried")
            trainer.release()
            wait_for(lambda: (p := files.json("progress.json")) and p["step"] == 3, what="training went on")
    assert set(calls) == {"trainwatch-writer"}  # the writer's failure, never the training thread's
    assert files.json("_complete")["step"] == 3
    assert not any(k.startswith("stacks/") for k in files.keys())
    assert sum("could not capture the stacks" in r.getMessage() for r in caplog.records) == 1


# -- caps -------------------------------------------------------------------------------------------------


def blocked_threads(count: int, depth: int, recurse: Callable[..., Any], gate: threading.Event) -> list[threading.Thread]:
    """`count` threads, each `depth` calls deep and then blocked in `gate.wait()` (returned once all are)."""
    ready = threading.Barrier(count + 1)
    threads = [threading.Thread(target=recurse, args=(depth, gate, ready), name=f"worker-{i}", daemon=True)
               for i in range(count)]
    for thread in threads:
        thread.start()
    ready.wait(30)
    wait_for(lambda: all(_in_event_wait(t.ident) for t in threads), what="every thread blocked in gate.wait()")
    return threads


def _in_event_wait(ident: Optional[int]) -> bool:
    frame = sys._current_frames().get(ident)  # type: ignore[arg-type]
    while frame is not None:
        if frame.f_code is threading.Event.wait.__code__:
            return True
        frame = frame.f_back
    return False


def recurse(depth: int, gate: threading.Event, ready: threading.Barrier) -> None:
    if depth:
        return recurse(depth - 1, gate, ready)
    ready.wait(30)
    gate.wait(60)
    return None


def test_a_deep_stack_keeps_its_40_innermost_frames_and_says_how_many_it_dropped():
    gate = threading.Event()
    try:
        [thread] = blocked_threads(1, 500, recurse, gate)
        body = capture(0, thread.ident, 7, 130.0)
    finally:
        gate.set()
    assert len(body) <= MAX_BYTES
    doc = json.loads(body)
    training = doc["threads"][0]
    assert training["training"] and training["name"] == "worker-0"
    assert len(training["frames"]) == MAX_FRAMES
    assert training["frames_dropped"] >= 500 + 1 - MAX_FRAMES  # 501 recurse frames, and threading's own below
    assert training["frames"][-1]["function"] == "wait"  # innermost last: inside Event.wait
    assert [f["function"] for f in training["frames"] if f["file"] == __file__][-1] == "recurse"
    assert doc["truncated"] is False and doc["step"] == 7 and doc["stuck_s"] == 130.0


def test_two_hundred_threads_with_long_names_fit_in_64_kib_the_training_thread_whole(tmp_path: Path):
    # A module whose path, function name and source line are each longer than their caps; the path's emoji are two
    # characters each where the watchdog counts (UTF-16, in JavaScript).
    folder = tmp_path
    for part in range(3):
        folder = folder / (f"deep{part}_" + "🚂" * 40)
    folder.mkdir(parents=True)
    function = "descend_" + "x" * 150
    module = folder / "long_module.py"
    module.write_text(
        f"def {function}(depth, gate, ready):\n"
        f"    return {function}(depth - 1, gate, ready) if depth else (ready.wait(30), gate.wait(60))"
        f"  # {'pad ' * 60}\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(module.read_text(), str(module), "exec"), namespace)
    gate = threading.Event()
    try:
        threads = blocked_threads(200, 60, namespace[function], gate)
        body = capture(0, threads[17].ident, 3, 200.0)
    finally:
        gate.set()
    assert len(body) <= MAX_BYTES
    doc = json.loads(body)
    assert doc["truncated"] is True
    assert 1 <= len(doc["threads"]) <= MAX_THREADS
    training = doc["threads"][0]
    assert training["name"] == "worker-17" and training["training"]
    assert len(training["frames"]) == MAX_FRAMES  # the training thread is kept whole
    assert sum(t["training"] for t in doc["threads"]) == 1
    long_frames = [f for t in doc["threads"] for f in t["frames"] if f["file"].endswith("long_module.py")]
    assert long_frames
    for frame in long_frames:
        assert units(frame["file"]) <= 240 and frame["file"].startswith("…") and "🚂" in frame["file"]
        assert len(frame["function"]) <= 120 and frame["function"].startswith("descend_")
        assert len(frame["code"]) <= 160 and frame["code"].startswith("return descend_")
    # Every other thread that is there is shortened or whole, each saying what it dropped.
    for thread in doc["threads"][1:]:
        assert len(thread["frames"]) <= MAX_FRAMES and len(thread["name"]) <= 80
    assert_the_watchdog_reads(tmp_path, body, rank=0)


def units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# Parses a stack file with the watchdog's own parser and prints its verdict.
STACK_CHECK = """
const { parseStackFile } = await import('./lambdas/core/protocol/index.ts');
const { readFileSync } = await import('node:fs');
const [path, rank] = JSON.parse(process.argv[1]);
console.log(JSON.stringify(parseStackFile(readFileSync(path), rank)));
"""


def assert_the_watchdog_reads(tmp_path: Path, body: bytes, rank: int) -> None:
    path = tmp_path / f"stacks-{rank}.json"
    path.write_bytes(body)
    result = subprocess.run(["node", "--import", "tsx/esm", "--input-type=module", "-e", STACK_CHECK,
                             json.dumps([str(path), rank])], cwd=REPO, capture_output=True, text=True, timeout=60,
                            check=True)
    verdict = json.loads(result.stdout)
    assert verdict["ok"], verdict
    assert verdict["value"] == json.loads(body)
