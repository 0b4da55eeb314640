#!/usr/bin/env bash
# trainwatch diagnosis: what is wrong with a training run, seen from its instance.
#
# Prints one `key=value` fact per line and `end=ok` last (a missing end marker means the output was cut).
# Inputs come only from environment variables that the SSM document sets from parameters validated by
# allowedPattern (and by trainwatch before sending): nothing here is ever evaluated as shell code.
# A missing tool, GPU, cgroup or path is reported as a fact; the script itself does not fail.
#   TW_RUN_ID TW_PID_FILE TW_PROCESS_PATTERN TW_CHECKPOINT_DIR TW_LOG_PATH TW_TAIL_LINES
set -u
export LC_ALL=C

RUN_ID="${TW_RUN_ID:-}"
PID_FILE="${TW_PID_FILE:-}"
PATTERN="${TW_PROCESS_PATTERN:-}"
CKPT_DIR="${TW_CHECKPOINT_DIR:-}"
LOG_PATH="${TW_LOG_PATH:-}"
TAIL_LINES="${TW_TAIL_LINES:-40}"
case "$TAIL_LINES" in '' | *[!0-9]*) TAIL_LINES=40 ;; esac
[ "$TAIL_LINES" -gt 200 ] && TAIL_LINES=200

# One fact per line: strip control characters so a value can never start a new line, and cap its length.
emit() {
  local value
  value=$(printf '%s' "$2" | tr -d '\000-\010\013-\037\177' | tr '\n\t' '  ' | cut -c1-300)
  printf '%s=%s\n' "$1" "$value"
}

emit tw.version 1
emit run_id "$RUN_ID"
emit host "$(hostname 2>/dev/null || echo unknown)"
emit time "$(date +%s)"

# A zombie (state Z) has exited; only its parent has not reaped it yet. The comm field may hold spaces.
alive_pid() {
  [ -r "/proc/$1/stat" ] || return 1
  [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]
}
# Another pgrep looking for the same pattern (a second diagnosis, a person's shell) has it on its command line.
# A process that exits meanwhile has no comm left: it is not alive either.
not_pgrep() {
  local c
  c=$(cat "/proc/$1/comm" 2>/dev/null) && [ -n "$c" ] && [ "$c" != pgrep ]
}

# --- the training process: PID file first, then a command-line pattern --------------------------
alive=unknown
source=none
if [ -n "$PID_FILE" ]; then
  source=pidfile
  if [ -r "$PID_FILE" ]; then
    pid=$(head -c 32 "$PID_FILE" | tr -cd '0-9')
    if [ -n "$pid" ] && alive_pid "$pid"; then
      alive=true
      emit process.pid "$pid"
      emit process.state "$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)"
    else
      alive=false
      emit process.pidfile_stale "${pid:-empty}"
    fi
  else
    emit process.pidfile_missing "$PID_FILE"
  fi
fi
if [ "$alive" = unknown ] && [ -n "$PATTERN" ]; then
  source=pattern
  if command -v pgrep >/dev/null 2>&1; then
    # pgrep would match this script's own command line if the pattern were in it; it is not (env only).
    pids=""
    for p in $(pgrep -f -- "$PATTERN" 2>/dev/null | grep -vx "$$" | head -n 16); do
      alive_pid "$p" && not_pgrep "$p" && pids="$pids $p"
    done
    if [ -n "$pids" ]; then
      alive=true
      for p in $pids; do emit process.pid "$p"; done
    else
      alive=false
    fi
  else
    emit process.problem "pgrep not installed"
  fi
fi
emit process.source "$source"
emit process.alive "$alive"

# --- GPUs ------------------------------------------------------------------------------------------
if command -v nvidia-smi >/dev/null 2>&1; then
  out=$(nvidia-smi --query-gpu=index,name,utilization.gpu,memory.used,memory.total,temperature.gpu,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,pci.bus_id --format=csv,noheader,nounits 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    emit gpu.problem "nvidia-smi exit $rc: $(printf '%s' "$out" | head -n 1)"
  elif printf '%s' "$out" | grep -qi 'no devices were found'; then
    emit gpu.problem "no devices were found"
  else
    n=0
    while IFS= read -r line; do
      [ -n "$line" ] || continue
      emit gpu "$line"
      n=$((n + 1))
    done <<<"$out"
    emit gpu.count "$n"
  fi
else
  emit gpu.problem "nvidia-smi not installed"
fi

# Kernel log: Xid errors and OOM kills (dmesg may be restricted to root; say so rather than fail).
if command -v dmesg >/dev/null 2>&1; then
  kern=$(dmesg 2>&1)
  if [ $? -ne 0 ]; then
    emit kernel.problem "$(printf '%s' "$kern" | head -n 1)"
  else
    printf '%s\n' "$kern" | grep -E 'NVRM: Xid|fallen off the bus' | tail -n 20 | while IFS= read -r l; do emit xid "$l"; done
    printf '%s\n' "$kern" | grep -E 'Out of memory: Kill|oom-kill:|Memory cgroup out of memory' | tail -n 5 | while IFS= read -r l; do emit kernel.oom "$l"; done
  fi
else
  emit kernel.problem "dmesg not installed"
fi

# --- disks: the checkpoint and log paths (their nearest existing parent), and / ---------------------
nearest() {
  local p="$1"
  while [ -n "$p" ] && [ ! -e "$p" ]; do p=$(dirname "$p"); done
  printf '%s' "${p:-/}"
}
for p in "$CKPT_DIR" "$LOG_PATH" /; do
  [ -n "$p" ] || continue
  [ -e "$p" ] || emit path.missing "$p"
  target=$(nearest "$p")
  d=$(df -P -k "$target" 2>/dev/null | awk 'NR==2 {print $2","$3","$4","$5","$6}')
  [ -n "$d" ] && emit disk "$p,$d"
  i=$(df -P -i "$target" 2>/dev/null | awk 'NR==2 {print $2","$3","$4","$5}')
  [ -n "$i" ] && emit inode "$p,$i"
done

# --- memory and OOM counters -------------------------------------------------------------------------
if [ -r /proc/meminfo ]; then
  emit mem.total_kb "$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)"
  emit mem.available_kb "$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)"
fi
[ -r /proc/vmstat ] && emit oom_kill.since_boot "$(awk '$1=="oom_kill" {print $2}' /proc/vmstat)"
if [ -r /sys/fs/cgroup/cgroup.controllers ]; then
  emit cgroup.version 2
  [ -r /sys/fs/cgroup/memory.events ] && emit cgroup.oom_kill "$(awk '$1=="oom_kill" {print $2}' /sys/fs/cgroup/memory.events)"
elif [ -d /sys/fs/cgroup/memory ]; then
  emit cgroup.version 1
  [ -r /sys/fs/cgroup/memory/memory.oom_control ] && emit cgroup.oom_kill "$(awk '$1=="oom_kill" {print $2}' /sys/fs/cgroup/memory/memory.oom_control)"
else
  emit cgroup.version none
fi

# --- NCCL transport (from the log) and EFA devices ---------------------------------------------------
efa=0
if [ -d /sys/class/infiniband ]; then
  efa=$(ls /sys/class/infiniband 2>/dev/null | grep -c '^efa' || true)
fi
emit efa.devices "$efa"
if [ -n "$LOG_PATH" ] && [ -r "$LOG_PATH" ]; then
  net=$(grep -aE 'Using network (Socket|IB|Libfabric|AWS Libfabric)|NET/OFI Selected Provider is|NET/Socket ?: ?Using' "$LOG_PATH" 2>/dev/null | tail -n 1)
  case "$net" in
    *Libfabric* | *"Selected Provider is efa"*) emit nccl.transport efa ;;
    *"network IB"*) emit nccl.transport ib ;;
    *Socket*) emit nccl.transport socket ;;
    *) emit nccl.transport unknown ;;
  esac
  emit log.path "$LOG_PATH"
  tail -n "$TAIL_LINES" "$LOG_PATH" 2>/dev/null | while IFS= read -r l; do emit log "$l"; done
elif [ -n "$LOG_PATH" ]; then
  emit log.missing "$LOG_PATH"
fi

# --- Python stacks: where each training process waits (py-spy, when the instance has it) -------------
# Read only; `py-spy dump` pauses the process for a moment. Frames are emitted innermost first, as
# py-spy prints them; a process is capped at 40 lines, all of them at 120
# (last, so that a long dump can never cut the facts above out of the output).
if [ "$alive" = true ]; then
  if command -v py-spy >/dev/null 2>&1; then
    left=120
    for p in ${pid:-} ${pids:-}; do
      [ "$left" -gt 0 ] || break
      out=$(timeout 20 py-spy dump --full-filenames --pid "$p" 2>&1)
      rc=$?
      if [ $rc -ne 0 ]; then
        emit stack.problem "py-spy exit $rc for pid $p: $(printf '%s' "$out" | head -n 1)"
        continue
      fi
      emit stack.process "$p"
      while IFS= read -r l; do
        [ "$left" -gt 0 ] || break
        emit stack "$l"
        left=$((left - 1))
      done <<<"$(printf '%s\n' "$out" | head -n 40)"
    done
  else
    emit stack.problem "py-spy not installed (pip install py-spy: the diagnosis then shows where the process waits)"
  fi
fi

emit end ok
exit 0
