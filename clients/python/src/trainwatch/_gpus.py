"""GPU telemetry for the node file: NVML (optional `nvidia-ml-py`), else `nvidia-smi --query-gpu`, else none.

Runs on the writer thread only. Nothing here raises: a failing source is logged once and the node file
says what went wrong (`gpu_error`) instead of carrying readings.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from typing import Any, Callable, Optional

log = logging.getLogger("trainwatch")

#: nvidia-smi columns, in the order of the node file's GPU fields (the v1.1 set, which every writer sends).
BASE_QUERY = (
    "index,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,ecc.errors.uncorrected.volatile.total"
)
BASE_FIELDS = ("index", "util", "mem_used_mib", "mem_total_mib", "temp_c", "power_w", "ecc_uncorrected")
#: And clocks, power limit and throttle reasons: what tells a throttled GPU from an idle or a busy one.
EXTRA_QUERY = "clocks.sm,clocks.max.sm,power.limit,clocks_throttle_reasons.active"
EXTRA_FIELDS = ("sm_clock_mhz", "sm_clock_max_mhz", "power_limit_w", "throttle")
QUERY = f"{BASE_QUERY},{EXTRA_QUERY}"
FIELDS = BASE_FIELDS + EXTRA_FIELDS
# What is asked, in this order, of an nvidia-smi that refuses a field: drivers since 535 call the throttle
# reasons "clock event reasons" (and may one day drop the old name); an older one may lack the extra fields.
_QUERIES = (QUERY, QUERY.replace("clocks_throttle_reasons.", "clocks_event_reasons."), BASE_QUERY)
_INTEGER = {"index", "ecc_uncorrected", "sm_clock_mhz", "sm_clock_max_mhz"}
#: NVML's clock throttle (event) reason bits, by the names the node file's `throttle` lists.
THROTTLE_REASONS = (
    ("gpu_idle", 0x1),
    ("applications_clocks", 0x2),
    ("sw_power_cap", 0x4),
    ("hw_slowdown", 0x8),
    ("sync_boost", 0x10),
    ("sw_thermal", 0x20),
    ("hw_thermal", 0x40),
    ("hw_power_brake", 0x80),
    ("display_clocks", 0x100),
)
#: What nvidia-smi prints for a reading it does not have; not a failure.
_ABSENT = {"[N/A]", "N/A", "[Not Supported]", "Not Supported", ""}

Sample = tuple[Optional[list[dict[str, Any]]], Optional[str]]


def _number(text: str, integer: bool) -> Optional[float]:
    try:
        value = float(text)
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return int(value) if integer else round(value, 1)


def throttle_reasons(mask: int) -> list[str]:
    """The names of the reasons set in an NVML throttle (event) reason bitmask; unknown bits are left out."""
    return [name for name, bit in THROTTLE_REASONS if mask & bit]


def _throttle(cell: str) -> Optional[list[str]]:
    try:
        return throttle_reasons(int(cell, 16))  # `0x0000000000000004`
    except ValueError:
        return None


def parse_query(output: str) -> list[dict[str, Any]]:
    """`nvidia-smi --query-gpu=QUERY (or BASE_QUERY) --format=csv,noheader,nounits` → GPU entries; a bracketed
    error (`[GPU requires reset]`, `[Unknown Error]`) in a v1.1 reading becomes that GPU's `error`."""
    gpus = []
    for line in output.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) not in (len(FIELDS), len(BASE_FIELDS)):
            continue
        index = _number(cells[0], True)
        if index is None or index < 0:
            continue
        gpu: dict[str, Any] = {"index": index}
        for name, cell in zip(FIELDS[1:], cells[1:]):
            value = _throttle(cell) if name == "throttle" else _number(cell, name in _INTEGER)
            if value is not None and (isinstance(value, list) or value >= 0):
                gpu[name] = value
            elif name in BASE_FIELDS and cell not in _ABSENT and cell.startswith("[") and "error" not in gpu:
                # Only a v1.1 reading names a broken GPU: a clock or a limit it will not give is merely absent.
                gpu["error"] = cell.strip("[]")[:200]
        gpus.append(gpu)
    return gpus


def _memory(nv: Any, handle: Any) -> Any:
    """Memory as nvidia-smi reports it. NVML's v1 struct counts the driver's reservation as used (480 MiB on an
    idle H100, driver 580); v2 reports it apart, as nvidia-smi does, so NVML and nvidia-smi nodes agree. Older
    bindings or drivers have v1 only."""
    version = getattr(nv, "nvmlMemory_v2", None)
    if version is not None:
        try:
            return nv.nvmlDeviceGetMemoryInfo(handle, version=version)
        except (nv.NVMLError, TypeError):  # a driver without v2, or a binding that takes no version
            pass
    return nv.nvmlDeviceGetMemoryInfo(handle)


def _nvml_extras(nv: Any, handle: Any) -> dict[str, Any]:
    """Clocks, power limit and throttle reasons. Each is left out when NVML (or an older binding) will not give
    it: unlike a v1.1 reading, a refusal here (no permission on a vGPU, no call in the binding) says nothing
    about the GPU's health."""
    # Named `ClocksEventReasons` since driver 535; the old name is the fallback of older bindings.
    reasons = getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
        nv, "nvmlDeviceGetCurrentClocksThrottleReasons", None
    )
    readings: dict[str, Callable[[], Any]] = {
        "sm_clock_mhz": lambda: int(nv.nvmlDeviceGetClockInfo(handle, nv.NVML_CLOCK_SM)),
        "sm_clock_max_mhz": lambda: int(nv.nvmlDeviceGetMaxClockInfo(handle, nv.NVML_CLOCK_SM)),
        "power_limit_w": lambda: round(nv.nvmlDeviceGetEnforcedPowerLimit(handle) / 1000, 1),
        "throttle": lambda: throttle_reasons(int(reasons(handle))),  # type: ignore[misc]
    }
    extras = {}
    for name, read in readings.items():
        try:
            extras[name] = read()
        except (nv.NVMLError, AttributeError, TypeError, ValueError):
            pass
    return extras


class GpuSampler:
    """Reads every GPU of this node. `sample()` returns (gpus, problem): gpus None when there is no source."""

    def __init__(self, nvidia_smi_timeout: float = 5.0, which: Callable[[str], Optional[str]] = shutil.which):
        self._timeout = nvidia_smi_timeout
        self._which = which
        self._source: Optional[str] = None  # "nvml", "nvidia-smi" or "none", chosen at the first sample
        self._nvml: Any = None
        self._query = 0  # index in _QUERIES: the first this nvidia-smi accepts
        self._warned: set[str] = set()

    def sample(self) -> Sample:
        try:
            if self._source is None:
                self._source = self._choose()
            if self._source == "nvml":
                return self._from_nvml(), None
            if self._source == "nvidia-smi":
                return self._from_nvidia_smi()
            return None, None
        except Exception as error:  # the node file goes on without GPU readings
            problem = f"GPU telemetry failed: {type(error).__name__}: {error}"[:300]
            self._warn_once(self._source or "choose", "trainwatch: %s (node files go on without it)", problem)
            return None, problem

    def _choose(self) -> str:
        try:
            import pynvml  # nvidia-ml-py, optional

            pynvml.nvmlInit()
            self._nvml = pynvml
            return "nvml"
        except Exception as error:  # not installed, or no driver: try the CLI
            log.debug("trainwatch: no NVML (%s)", error)
        return "nvidia-smi" if self._which("nvidia-smi") else "none"

    def _from_nvidia_smi(self) -> Sample:
        path = self._which("nvidia-smi") or "nvidia-smi"
        while True:
            # A list of arguments, never a shell; a hung driver cannot hold the writer past the timeout.
            done = subprocess.run(
                [path, f"--query-gpu={_QUERIES[self._query]}", "--format=csv,noheader,nounits"],
                capture_output=True, text=True, timeout=self._timeout, check=False,
            )
            refused = done.returncode != 0 and "is not a valid field" in (done.stdout + done.stderr)
            if not refused or self._query == len(_QUERIES) - 1:
                break
            self._query += 1  # for good: the driver will not learn the field while we run
        if done.returncode != 0:
            first = (done.stdout or done.stderr).strip().splitlines()[:1]
            problem = f"nvidia-smi exit {done.returncode}: {first[0] if first else 'no output'}"[:300]
            self._warn_once("nvidia-smi-exit", "trainwatch: %s", problem)
            return None, problem
        return parse_query(done.stdout), None

    def _from_nvml(self) -> list[dict[str, Any]]:
        nv = self._nvml
        gpus = []
        for index in range(nv.nvmlDeviceGetCount()):
            gpu: dict[str, Any] = {"index": index}
            try:
                handle = nv.nvmlDeviceGetHandleByIndex(index)
            except nv.NVMLError as error:  # e.g. GPU is lost (fallen off the bus)
                gpu["error"] = str(error)[:200]
                gpus.append(gpu)
                continue
            readings: dict[str, Callable[[], Any]] = {
                "util": lambda: nv.nvmlDeviceGetUtilizationRates(handle).gpu,
                "mem_used_mib": lambda: _memory(nv, handle).used // (1024 * 1024),
                "mem_total_mib": lambda: _memory(nv, handle).total // (1024 * 1024),
                "temp_c": lambda: nv.nvmlDeviceGetTemperature(handle, nv.NVML_TEMPERATURE_GPU),
                "power_w": lambda: round(nv.nvmlDeviceGetPowerUsage(handle) / 1000, 1),
                "ecc_uncorrected": lambda: nv.nvmlDeviceGetTotalEccErrors(
                    handle, nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nv.NVML_VOLATILE_ECC
                ),
            }
            for name, read in readings.items():
                try:
                    gpu[name] = read()
                except nv.NVMLError_NotSupported:
                    pass
                except nv.NVMLError as error:
                    gpu.setdefault("error", str(error)[:200])
            gpu.update(_nvml_extras(nv, handle))
            gpus.append(gpu)
        return gpus

    def _warn_once(self, key: str, message: str, *args: Any) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message, *args)
