"""Protocol v1.1: every node's local rank 0 writes `nodes/{node_rank}.json`, against the moto server."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import pytest

import trainwatch
from _support import RunFiles, wait_for
from test_protocol_schema import REPO
from trainwatch._gpus import GpuSampler, parse_query
from trainwatch._node import NodeBeat
from trainwatch._nodes import Topology, topology

STUBS = REPO / "test" / "fixtures" / "bin"
FAST = {"interval": 0.05, "flush_timeout": 5.0}
LAUNCHER_VARS = ("RANK", "LOCAL_RANK", "GROUP_RANK", "NODE_RANK", "SLURM_NODEID", "SLURM_LOCALID", "SLURM_NNODES",
                 "NNODES", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "SLURM_PROCID", "TRAINWATCH_NODE_FILES")

# What each launcher sets in one process (the others' variables absent), and where that process sits; the
# shell CLI's tests read the same table, so both writers follow one rule.
LAUNCHERS = [
    (case["launcher"], case["env"], Topology(case["node_rank"], case["nodes"], case["local_rank"]))
    for case in json.loads((REPO / "test" / "fixtures" / "launchers.json").read_text())
]


@pytest.mark.parametrize(("launcher", "env", "expected"), LAUNCHERS, ids=[launcher[0] for launcher in LAUNCHERS])
def test_node_rank_and_count_from_each_launchers_environment(launcher: str, env: dict[str, str], expected: Topology):
    assert topology(env) == expected


@pytest.fixture
def launcher(monkeypatch: pytest.MonkeyPatch):
    """Sets a launcher's variables (and clears the others) for watch(), which reads os.environ."""
    for name in LAUNCHER_VARS:
        monkeypatch.delenv(name, raising=False)

    def set_env(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(name, value)

    return set_env


@pytest.fixture
def gpus(monkeypatch: pytest.MonkeyPatch):
    """Puts a stub scenario's nvidia-smi first on PATH (None: no nvidia-smi at all); NVML is never importable."""
    monkeypatch.setitem(sys.modules, "pynvml", None)

    def use(scenario: str | None) -> None:
        path = os.environ.get("PATH", "")
        clean = os.pathsep.join(p for p in path.split(os.pathsep) if not Path(p, "nvidia-smi").exists())
        monkeypatch.setenv("PATH", f"{STUBS / scenario}{os.pathsep}{clean}" if scenario else clean)

    return use


def test_another_nodes_local_rank_0_writes_only_its_node_file(bucket: str, run_id: str, files: RunFiles,
                                                               launcher, gpus, tmp_path: Path):
    launcher(RANK="8", LOCAL_RANK="0", GROUP_RANK="1", LOCAL_WORLD_SIZE="8", WORLD_SIZE="16")
    gpus("healthy")
    monkeypatch_id = "i-0abc1234def567890"
    with trainwatch.watch(run_id, bucket, instance_id=monkeypatch_id, **FAST) as run:
        assert not run.enabled and run.node_rank == 1
        for step in range(1, 7):
            run.progress(step * 10, total_steps=1000, loss=0.5, samples=320)
            time.sleep(0.02)
        node = wait_for(lambda: (n := files.json("nodes/1.json")) and n.get("step") == 60 and n, what="node file")
    assert files.keys() == ["nodes/1.json"]  # no metadata, progress or _complete: those are rank 0's
    assert node["node_rank"] == 1 and node["nodes"] == 2
    assert node["instance_id"] == monkeypatch_id and node["hostname"] and node["last_updated"].endswith("Z")
    # At least 20 ms per call of 10 steps (a busy machine may take longer, never less). The first file with step 60
    # holds that call's 320 samples, over at least one writer interval (or, for the first file, the calls so far).
    assert 0.002 <= node["step_time_s"] < 1, node
    assert 0 < node["samples_per_s"] <= 6 * 320 / FAST["interval"], node
    assert len(node["gpus"]) == 8
    assert node["gpus"][0] == {"index": 0, "util": 97, "mem_used_mib": 71000, "mem_total_mib": 81559, "temp_c": 61,
                               "power_w": 652.3, "ecc_uncorrected": 0}
    assert "gpu_error" not in node
    assert_the_watchdog_accepts(tmp_path, files.text("nodes/1.json"), rank=1)


def test_a_single_node_run_writes_node_0_and_says_nodes_in_metadata(bucket: str, run_id: str, files: RunFiles,
                                                                   launcher, gpus, tmp_path: Path):
    gpus(None)
    with trainwatch.watch(run_id, bucket, **FAST) as run:
        run.progress(1, tokens_per_s=4096.5)
        node = wait_for(lambda: (n := files.json("nodes/0.json")) and n.get("step") == 1 and n, what="node 0")
    assert node["tokens_per_s"] == 4096.5 and node["nodes"] == 1
    # v1.3: the writer's interval and the stacks' threshold in force (the default: 60 s); no cadence after one call.
    assert node["every_s"] == FAST["interval"] and node["stack_after_s"] == 60.0
    assert not {"call_gap_s", "call_gap_p99_s", "calls"} & set(node)
    assert "gpus" not in node and "gpu_error" not in node  # no NVML, no nvidia-smi: no telemetry, no complaint
    assert files.json("metadata.json")["nodes"] == 1
    assert_the_watchdog_accepts(tmp_path, files.text("nodes/0.json"), rank=0)


@pytest.mark.parametrize("env", [{"RANK": "11", "LOCAL_RANK": "3", "GROUP_RANK": "1", "LOCAL_WORLD_SIZE": "8"},
                                 {"SLURM_PROCID": "9", "SLURM_LOCALID": "1", "SLURM_NODEID": "2", "SLURM_NNODES": "4"},
                                 {"RANK": "5", "WORLD_SIZE": "16"}])
def test_a_process_that_is_not_its_nodes_local_rank_0_writes_nothing(bucket: str, run_id: str, files: RunFiles,
                                                                     launcher, env: dict[str, str]):
    launcher(**env)
    threads = threading.active_count()
    with trainwatch.watch(run_id, bucket, **FAST) as run:
        assert run.node_rank is None
        assert threading.active_count() == threads
        run.progress(1)
    time.sleep(0.2)
    assert files.keys() == []


def test_node_files_can_be_turned_off(bucket: str, run_id: str, files: RunFiles, launcher):
    launcher(TRAINWATCH_NODE_FILES="0")
    with trainwatch.watch(run_id, bucket, **FAST) as run:
        run.progress(1)
    assert "nodes/0.json" not in files.keys() and "nodes" in files.json("metadata.json")


def test_a_gpu_that_fell_off_the_bus_is_named_in_the_node_file(bucket: str, run_id: str, files: RunFiles,
                                                              launcher, gpus, tmp_path: Path):
    gpus("xid79")
    with trainwatch.watch(run_id, bucket, **FAST):
        node = wait_for(lambda: files.json("nodes/0.json"), what="node file")
    assert node["gpus"][3] == {"index": 3, "error": "GPU requires reset"}
    assert node["gpus"][2]["power_w"] == 72.2
    assert_the_watchdog_accepts(tmp_path, files.text("nodes/0.json"), rank=0)


def test_a_dead_driver_is_reported_once_and_training_goes_on(bucket: str, run_id: str, files: RunFiles, launcher,
                                                            gpus, caplog: pytest.LogCaptureFixture):
    gpus("nodriver")
    with caplog.at_level(logging.WARNING, logger="trainwatch"):
        with trainwatch.watch(run_id, bucket, **FAST) as run:
            for step in range(20):
                run.progress(step)
                time.sleep(0.02)
            node = wait_for(lambda: (n := files.json("nodes/0.json")) and n.get("step") == 19 and n)
    assert node["gpu_error"].startswith("nvidia-smi exit 9: NVIDIA-SMI has failed because it couldn't communicate")
    assert "gpus" not in node
    assert sum("nvidia-smi exit 9" in r.getMessage() for r in caplog.records) == 1
    assert files.json("_complete")["step"] == 19


def test_telemetry_that_raises_never_reaches_training(bucket: str, run_id: str, files: RunFiles, launcher,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      caplog: pytest.LogCaptureFixture):
    calls = []

    def broken(self: GpuSampler) -> str:
        calls.append(threading.current_thread().name)
        raise OSError("NVML shared library is corrupt")

    monkeypatch.setattr(GpuSampler, "_choose", broken)
    with caplog.at_level(logging.WARNING, logger="trainwatch"):
        with trainwatch.watch(run_id, bucket, **FAST) as run:
            for step in range(10):
                run.progress(step)
                time.sleep(0.02)
            node = wait_for(lambda: (n := files.json("nodes/0.json")) and n.get("step") == 9 and n)
    assert node["gpu_error"] == "GPU telemetry failed: OSError: NVML shared library is corrupt"
    assert calls and set(calls) == {"trainwatch-writer"}  # sampled on the writer thread, never the training one
    assert sum("GPU telemetry failed" in r.getMessage() for r in caplog.records) == 1
    assert files.json("_complete")["step"] == 9


def test_a_hung_nvidia_smi_is_given_up_on_after_the_timeout(tmp_path: Path):
    stub = tmp_path / "nvidia-smi"
    stub.write_text("#!/bin/sh\nsleep 30\n")
    stub.chmod(0o755)
    sampler = GpuSampler(nvidia_smi_timeout=0.3, which=lambda _: str(stub))
    sampler._choose = lambda: "nvidia-smi"  # type: ignore[method-assign]
    started = time.monotonic()
    gpus, problem = sampler.sample()
    assert time.monotonic() - started < 5
    assert gpus is None and problem and problem.startswith("GPU telemetry failed: TimeoutExpired")


def test_parses_the_query_tolerating_readings_a_gpu_does_not_offer():
    out = subprocess.run([str(STUBS / "na" / "nvidia-smi"), "--query-gpu=" + trainwatch._gpus.BASE_QUERY,
                          "--format=csv,noheader,nounits"], capture_output=True, text=True, check=True).stdout
    assert parse_query(out) == [{"index": 0, "util": 93, "mem_used_mib": 20110, "mem_total_mib": 23028, "temp_c": 58}]
    assert parse_query("0, [N/A], 1, 2, 3, [Not Supported], 0\nNo devices were found\n\n") == [
        {"index": 0, "mem_used_mib": 1, "mem_total_mib": 2, "temp_c": 3, "ecc_uncorrected": 0}
    ]
    assert parse_query("2, [Unknown Error], [Unknown Error], 81559, 35, 70.5, 0") == [
        {"index": 2, "error": "Unknown Error", "mem_total_mib": 81559, "temp_c": 35, "power_w": 70.5,
         "ecc_uncorrected": 0}
    ]


class _NvmlError(Exception):
    pass


class _NotSupported(_NvmlError):
    pass


def _fake_nvml() -> Any:
    """pynvml's surface as the sampler uses it: GPU 0 healthy without ECC support, GPU 1 lost."""
    nv = types.SimpleNamespace(NVMLError=_NvmlError, NVMLError_NotSupported=_NotSupported, NVML_TEMPERATURE_GPU=0,
                               NVML_MEMORY_ERROR_TYPE_UNCORRECTED=1, NVML_VOLATILE_ECC=0)

    def handle(index: int) -> int:
        if index == 1:
            raise _NvmlError("GPU is lost")
        return index

    def ecc(*_: Any) -> int:
        raise _NotSupported("Not Supported")

    nv.nvmlInit = lambda: None
    nv.nvmlDeviceGetCount = lambda: 2
    nv.nvmlDeviceGetHandleByIndex = handle
    nv.nvmlDeviceGetUtilizationRates = lambda h: types.SimpleNamespace(gpu=88)
    nv.nvmlDeviceGetMemoryInfo = lambda h: types.SimpleNamespace(used=1024 * 1024 * 512, total=1024 * 1024 * 81559)
    nv.nvmlDeviceGetTemperature = lambda h, sensor: 55
    nv.nvmlDeviceGetPowerUsage = lambda h: 612_345
    nv.nvmlDeviceGetTotalEccErrors = ecc
    return nv


def _fake_nvml_v2(v2_works: bool) -> Any:
    """A binding with the v2 memory struct (nvidia-ml-py ≥ 11.515): on driver 580 an idle H100 reads 480 MiB used in
    v1 (the driver's reservation) and 0 in v2, as nvidia-smi does (recorded in test/fixtures/device/h100)."""
    nv = _fake_nvml()
    nv.nvmlMemory_v2 = 0x02000028

    def memory(h: int, version: Any = None) -> Any:
        mib = 1024 * 1024
        if version is None:
            return types.SimpleNamespace(used=480 * mib, total=81559 * mib)
        if not v2_works:
            raise _NotSupported("Function Not Found")
        return types.SimpleNamespace(used=0, reserved=480 * mib, total=81559 * mib)

    nv.nvmlDeviceGetMemoryInfo = memory
    return nv


def test_nvml_is_preferred_when_nvidia_ml_py_is_installed(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml())
    gpus, problem = GpuSampler(which=lambda _: "/should/not/be/used").sample()
    assert problem is None
    assert gpus == [{"index": 0, "util": 88, "mem_used_mib": 512, "mem_total_mib": 81559, "temp_c": 55,
                     "power_w": 612.3},
                    {"index": 1, "error": "GPU is lost"}]


def test_nvml_memory_leaves_out_the_drivers_reservation_as_nvidia_smi_does(monkeypatch: pytest.MonkeyPatch):
    for v2_works, used in ((True, 0), (False, 480)):  # v1 where the driver has no v2
        monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml_v2(v2_works))
        gpus, _ = GpuSampler(which=lambda _: None).sample()
        assert gpus is not None and (gpus[0]["mem_used_mib"], gpus[0]["mem_total_mib"]) == (used, 81559)


def test_without_nvml_the_sampler_falls_back_to_nvidia_smi_then_to_nothing(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # `import pynvml` raises ImportError
    with_cli = GpuSampler(which=lambda _: str(STUBS / "idle" / "nvidia-smi"))
    gpus, problem = with_cli.sample()
    assert problem is None and [g["util"] for g in gpus or []] == [0] * 8
    assert GpuSampler(which=lambda _: None).sample() == (None, None)


THROTTLED = REPO / "test" / "fixtures" / "gpu-table-throttled.sh"


def test_clocks_power_limit_and_throttle_reasons_from_nvidia_smi(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    gpus, problem = GpuSampler(which=lambda _: str(THROTTLED)).sample()
    assert problem is None and gpus is not None
    extras = [{k: g.get(k) for k in ("sm_clock_mhz", "sm_clock_max_mhz", "power_w", "power_limit_w", "throttle")}
              for g in gpus]
    assert extras == [
        {"sm_clock_mhz": 1980, "sm_clock_max_mhz": 1980, "power_w": 652.3, "power_limit_w": 700.0, "throttle": []},
        {"sm_clock_mhz": 1635, "sm_clock_max_mhz": 1980, "power_w": 699.1, "power_limit_w": 700.0,
         "throttle": ["sw_power_cap"]},
        {"sm_clock_mhz": 1005, "sm_clock_max_mhz": 1980, "power_w": 402.7, "power_limit_w": 700.0,
         "throttle": ["hw_slowdown", "hw_thermal"]},
        {"sm_clock_mhz": 345, "sm_clock_max_mhz": 1980, "power_w": 71.4, "power_limit_w": 700.0,
         "throttle": ["gpu_idle"]},
        # A vGPU that gives none of them: each left out, and the GPU is not called broken for it.
        {"sm_clock_mhz": None, "sm_clock_max_mhz": None, "power_w": None, "power_limit_w": None, "throttle": None},
    ]
    assert all("error" not in g for g in gpus)
    beat = NodeBeat(0, 1, gpus=GpuSampler(which=lambda _: str(THROTTLED)))
    assert_the_watchdog_accepts(tmp_path, beat.body(lambda: None).decode(), rank=0)


def _stub(tmp_path: Path, header: str, row: str) -> tuple[Path, Path]:
    """An nvidia-smi that knows only the columns of `header`, and logs the query of each call."""
    log = tmp_path / "queries.log"
    stub = tmp_path / "nvidia-smi"
    stub.write_text(f"#!/bin/sh\necho \"$1\" >>{log}\nexec sh {REPO / 'test' / 'fixtures' / 'gpu-table.sh'} \"$@\" <<'EOF'\n"
                    f"{header}\n{row}\nEOF\n")
    stub.chmod(0o755)
    return stub, log


def test_an_nvidia_smi_that_refuses_a_field_is_asked_the_next_query_once_and_for_good(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    base = "index, utilization.gpu, memory.used, memory.total, temperature.gpu, power.draw, " \
           "ecc.errors.uncorrected.volatile.total"
    # A driver that knows the throttle reasons only by their newer name: asked for that.
    stub, log = _stub(tmp_path, base + ", clocks.sm, clocks.max.sm, power.limit, clocks_event_reasons.active",
                      "0, 99, 1, 2, 60, 650.5, 0, 1410, 1980, 700.00, 0x0000000000000020")
    sampler = GpuSampler(which=lambda _: str(stub))
    for _ in range(2):
        gpus, problem = sampler.sample()
        assert problem is None and gpus is not None
        assert gpus[0]["throttle"] == ["sw_thermal"] and gpus[0]["sm_clock_mhz"] == 1410
    assert [q.count("clocks_event_reasons") for q in log.read_text().splitlines()] == [0, 1, 1]
    # An older one without any of them: the v1.1 readings, as before.
    old = tmp_path / "old"
    old.mkdir()
    stub, log = _stub(old, base, "0, 99, 1, 2, 60, 650.5, 0")
    sampler = GpuSampler(which=lambda _: str(stub))
    assert sampler.sample() == ([{"index": 0, "util": 99, "mem_used_mib": 1, "mem_total_mib": 2, "temp_c": 60,
                                  "power_w": 650.5, "ecc_uncorrected": 0}], None)
    sampler.sample()
    assert len(log.read_text().splitlines()) == 4  # three queries once, then the one that works


def test_nvml_gives_clocks_power_limit_and_throttle_reasons_where_it_can(monkeypatch: pytest.MonkeyPatch):
    nv = _fake_nvml()
    nv.NVML_CLOCK_SM = 1
    nv.nvmlDeviceGetClockInfo = lambda h, clock: 1410 if clock == 1 else 0
    nv.nvmlDeviceGetMaxClockInfo = lambda h, clock: 1980 if clock == 1 else 0

    def limit(h: int) -> int:
        raise _NvmlError("Insufficient Permissions")  # a vGPU: absent, and no `error` for a healthy GPU

    nv.nvmlDeviceGetEnforcedPowerLimit = limit
    # Only the old name in this binding: 0x44 is sw_power_cap and hw_thermal; 0x200 is a bit of no name here.
    nv.nvmlDeviceGetCurrentClocksThrottleReasons = lambda h: 0x244
    monkeypatch.setitem(sys.modules, "pynvml", nv)
    gpus, problem = GpuSampler(which=lambda _: None).sample()
    assert problem is None and gpus is not None
    assert gpus[0] == {"index": 0, "util": 88, "mem_used_mib": 512, "mem_total_mib": 81559, "temp_c": 55,
                       "power_w": 612.3, "sm_clock_mhz": 1410, "sm_clock_max_mhz": 1980,
                       "throttle": ["sw_power_cap", "hw_thermal"]}
    nv.nvmlDeviceGetEnforcedPowerLimit = lambda h: 700_000
    nv.nvmlDeviceGetCurrentClocksEventReasons = lambda h: 0  # the newer name wins where the binding has it
    gpus, _ = GpuSampler(which=lambda _: None).sample()
    assert gpus is not None and gpus[0]["power_limit_w"] == 700.0 and gpus[0]["throttle"] == []


def test_step_time_is_the_median_so_a_checkpoint_pause_does_not_skew_it():
    beat = NodeBeat(0, 1, gpus=GpuSampler(which=lambda _: None))
    t = 100.0
    for step in range(0, 110, 10):
        t += 60.0 if step == 50 else 1.0  # one checkpoint of a minute among 1 s per 10 steps
        beat.record(t, step, {"tokens": 40960})
    timing = beat._timing(t)
    assert timing["step"] == 100 and timing["step_time_s"] == 0.1
    # The rate, though, is what the node did: ten calls' tokens over the 69 s since the first call, minute included.
    assert timing["tokens_per_s"] == round(10 * 40960 / 69, 3)
    assert "samples_per_s" not in timing


def _rates(beat: NodeBeat, now: float) -> dict[str, Any]:
    return beat._timing(now)


def test_a_1000x_slowdown_shows_at_its_true_size_in_the_next_node_file():
    beat = NodeBeat(0, 1, gpus=GpuSampler(which=lambda _: None))
    step, t = 0, 0.0
    while t < 60.0:  # 2 ms a step of 32 samples: 16,000 samples/s, more calls than the node keeps
        t, step = round(t + 0.002, 6), step + 1
        beat.record(t, step, {"samples": 32})
    fast = _rates(beat, t + 0.001)
    assert fast["samples_per_s"] == pytest.approx(16_000, rel=0.05) and fast["step_time_s"] == 0.002
    for _ in range(30):  # then 2 s a step: 16 samples/s
        t, step = t + 2.0, step + 1
        beat.record(t, step, {"samples": 32})
    # The next file, whenever the writer makes it within the next step, says 16 (the old median of the last 64
    # calls said 16,000 until 32 slow steps had passed).
    for late in (0.0, 0.7, 1.5):
        beat._previous = (60.001, fast)
        slow = _rates(beat, t + late)
        assert slow["samples_per_s"] == pytest.approx(16, rel=0.05), late
        assert slow["step_time_s"] == 2.0 and slow["step"] == step


def test_a_node_file_with_no_call_since_the_previous_one_says_no_work_once_the_step_is_overdue():
    beat = NodeBeat(0, 1, gpus=GpuSampler(which=lambda _: None))
    for i in range(1, 11):  # 10 steps a call, one call a second
        beat.record(100.0 + i, i * 10, {"tokens": 4096, "samples_per_s": 80.0})
    first = _rates(beat, 110.5)
    assert first == {"step": 100, "step_time_s": 0.1, "samples_per_s": 80.0, "tokens_per_s": 4096.0}
    # Half a second later, within the usual second between calls: nothing new, the previous file's timing stands.
    assert _rates(beat, 110.9) == first
    # Then overdue: no work done since the previous file, and a step time of at least the wait per 10 steps.
    stuck = _rates(beat, 125.0)
    assert stuck == {"step": 100, "step_time_s": 1.5, "samples_per_s": 0.0, "tokens_per_s": 0.0}


def test_a_step_longer_than_the_writers_interval_does_not_read_as_a_stop():
    beat = NodeBeat(0, 1, gpus=GpuSampler(which=lambda _: None))
    t = 0.0
    files = []
    for step in range(1, 12):  # 90 s steps of 64 samples, a node file every 60 s
        while t + 60 < step * 90:
            t += 60
            files.append(_rates(beat, t))
        beat.record(step * 90.0, step, {"samples": 64})
    # Every file from the second step on says 64 samples per 90 s, with a call since the previous file or not.
    assert len(files) == 16 and all(f["samples_per_s"] == round(64 / 90, 3) for f in files[2:])
    assert all(f["step_time_s"] == 90.0 for f in files[2:])


def test_rates_the_script_reports_are_averaged_over_the_calls_since_the_previous_file():
    beat = NodeBeat(0, 1, gpus=GpuSampler(which=lambda _: None))
    beat.record(1.0, 1, {"tokens_per_s": 1000.0})
    _rates(beat, 1.5)
    for i, rate in enumerate((100.0, 200.0, 600.0)):
        beat.record(2.0 + i, 2 + i, {"tokens_per_s": rate, "samples": 4})
    timing = _rates(beat, 4.5)
    assert timing["tokens_per_s"] == 300.0 and timing["samples_per_s"] == round(12 / 3.0, 3)


def test_idle_s_says_how_long_each_gpu_has_been_idle_at_every_sample_since(monkeypatch: pytest.MonkeyPatch):
    readings = iter([[97, 3], [0, 4], [0, 60], [2, 1]])  # GPU 0 idle from the 2nd sample, GPU 1 busy at the 3rd

    class Sampler:
        def sample(self):
            return [{"index": i, "util": u} for i, u in enumerate(next(readings))], None

    clock = iter([1000.0, 1060.0, 1120.0, 1180.0])
    monkeypatch.setattr("trainwatch._node.time.monotonic", lambda: next(clock))
    beat = NodeBeat(0, 1, gpus=Sampler())  # type: ignore[arg-type]
    bodies = [json.loads(beat.body(lambda: None))["gpus"] for _ in range(4)]
    idle = [[g.get("idle_s") for g in gpus] for gpus in bodies]
    assert idle == [[None, 0.0], [0.0, 60.0], [60.0, None], [120.0, 0.0]]


def test_the_cadence_is_the_median_and_p99_gap_between_calls_from_the_5th_call_on(tmp_path: Path):
    beat = NodeBeat(0, 2, gpus=GpuSampler(which=lambda _: None), every_s=60.0)
    t = 0.0

    def fields(now: float) -> dict[str, Any]:
        body = beat.body(lambda: None, now=now).decode()
        return {k: v for k, v in json.loads(body).items() if k in ("every_s", "call_gap_s", "call_gap_p99_s", "calls",
                                                                     "stack_after_s")}

    for step, gap in enumerate([0.0, 300.0, 90.0, 5.0, 5.0]):  # compile and warm-up, left out
        t += gap
        beat.record(t, step * 4, {})
    for step in range(5, 14):  # 9 gaps from the 5th call: not yet
        t += 1.0
        beat.record(t, step * 4, {})
    assert fields(t + 0.5) == {"every_s": 60.0}
    t += 1.0
    beat.record(t, 56, {})
    assert fields(t + 0.5) == {"every_s": 60.0, "call_gap_s": 1.0, "call_gap_p99_s": 1.0, "calls": 10}
    # Per call, not per step (4 steps a call); 99 of 1 s and one eval of 40 s: the p99 (nearest rank) is 1 s;
    # a second one makes it 40 s. The latest 512 gaps count.
    for step in range(15, 105):
        t += 40.0 if step == 50 else 1.0
        beat.record(t, step * 4, {})
    assert fields(t)["calls"] == 100 and fields(t)["call_gap_p99_s"] == 1.0
    t += 40.0
    beat.record(t, 420, {})
    assert fields(t) == {"every_s": 60.0, "call_gap_s": 1.0, "call_gap_p99_s": 40.0, "calls": 101}
    for step in range(106, 1000):
        t += 0.25
        beat.record(t, step * 4, {})
    beat.stack_after = lambda: 60.0
    assert fields(t) == {"every_s": 60.0, "call_gap_s": 0.25, "call_gap_p99_s": 0.25, "calls": 512,
                         "stack_after_s": 60.0}
    assert_the_watchdog_accepts(tmp_path, beat.body(lambda: None, now=t).decode(), rank=0)


def test_a_body_is_written_even_when_every_detail_fails(caplog: pytest.LogCaptureFixture):
    beat = NodeBeat(3, 4)

    def no_instance() -> str:
        raise RuntimeError("IMDS exploded")

    with caplog.at_level(logging.WARNING, logger="trainwatch"):
        first = json.loads(beat.body(no_instance))
        beat.body(no_instance)
    assert set(first) == {"node_rank", "last_updated"} and first["node_rank"] == 3
    assert sum("without details" in r.getMessage() for r in caplog.records) == 1


# Parses node files with the watchdog's own parser and prints [{ok, problem, problems}].
NODE_CHECK = """
const { parseNodeFile } = await import('./lambdas/core/protocol/index.ts');
const { readFileSync } = await import('node:fs');
const [path, rank] = JSON.parse(process.argv[1]);
console.log(JSON.stringify(parseNodeFile(readFileSync(path), rank)));
"""


def assert_the_watchdog_accepts(tmp_path: Path, body: str, rank: int) -> None:
    path = tmp_path / f"node-{rank}.json"
    path.write_text(body)
    result = subprocess.run(["node", "--import", "tsx/esm", "--input-type=module", "-e", NODE_CHECK,
                             json.dumps([str(path), rank])], cwd=REPO, capture_output=True, text=True, timeout=60,
                            check=True)
    verdict = json.loads(result.stdout)
    assert verdict["ok"] and verdict["problems"] == [], verdict
    assert verdict["value"] == json.loads(body)
