#!/usr/bin/env bash
# trainwatch restart: stop what is left of the run, find its latest checkpoint, start the operator's command.
#
# Prints `key=value` lines and `end=ok` last. Inputs come only from environment variables that the SSM
# document sets from allowedPattern-validated parameters; this script re-checks them and never evaluates
# any of them except TW_COMMAND, the operator's own configured command (never heartbeat content).
#   TW_RUN_ID TW_ATTEMPT TW_COMMAND TW_CHECKPOINT_DIR TW_PID_FILE TW_PROCESS_PATTERN TW_DELAY_SECONDS
#   TW_RUN_AS TW_STOP_TIMEOUT TW_LOG_DIR TW_RESUME TW_NODE_RANK TW_NNODES TW_MASTER_ADDR TW_EXCLUDE_HOSTS
# Exit codes: 0 launched; 2 invalid input; 3 refused (disk full, process would not stop).
set -u
export LC_ALL=C

say() { printf '%s=%s\n' "$1" "$(printf '%s' "$2" | tr -d '\000-\037\177' | cut -c1-300)"; }
refuse() {
  say restart.refused "$2"
  say end ok
  exit "$1"
}

RUN_ID="${TW_RUN_ID:-}"
ATTEMPT="${TW_ATTEMPT:-}"
COMMAND="${TW_COMMAND:-}"
CKPT_DIR="${TW_CHECKPOINT_DIR:-}"
PID_FILE="${TW_PID_FILE:-}"
PATTERN="${TW_PROCESS_PATTERN:-}"
DELAY="${TW_DELAY_SECONDS:-0}"
RUN_AS="${TW_RUN_AS:-}"
STOP_TIMEOUT="${TW_STOP_TIMEOUT:-60}"
LOG_DIR="${TW_LOG_DIR:-/var/log/trainwatch}"
RESUME="${TW_RESUME:-require}"
NODE_RANK="${TW_NODE_RANK:-0}"
NNODES="${TW_NNODES:-1}"
MASTER_ADDR="${TW_MASTER_ADDR:-}"
EXCLUDE_HOSTS="${TW_EXCLUDE_HOSTS:-}"

# Defence in depth: the same shapes the document's allowedPattern enforces.
path_ok() { [ -z "$1" ] || [[ "$1" =~ ^(/[A-Za-z0-9_-][A-Za-z0-9._-]*)+/?$ ]]; }
[[ "$RUN_ID" =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$ ]] || refuse 2 "invalid run id"
[[ "$ATTEMPT" =~ ^[0-9]{1,4}$ ]] || refuse 2 "invalid attempt"
[[ "$DELAY" =~ ^[0-9]{1,5}$ ]] || refuse 2 "invalid delay"
[[ "$STOP_TIMEOUT" =~ ^[0-9]{1,4}$ ]] || refuse 2 "invalid stop timeout"
[[ "$COMMAND" =~ ^[A-Za-z0-9\ _./=:,@%+-]{1,1024}$ ]] || refuse 2 "invalid or missing command"
[[ -z "$PATTERN" || "$PATTERN" =~ ^[A-Za-z0-9\ ._/=:+-]{1,200}$ ]] || refuse 2 "invalid process pattern"
[[ -z "$RUN_AS" || "$RUN_AS" =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] || refuse 2 "invalid user"
for p in "$CKPT_DIR" "$PID_FILE" "$LOG_DIR"; do path_ok "$p" || refuse 2 "invalid path"; done
[[ "$RESUME" =~ ^(require|allow_scratch)$ ]] || refuse 2 "invalid resume mode"
[[ "$NODE_RANK" =~ ^[0-9]{1,5}$ && "$NNODES" =~ ^[0-9]{1,5}$ ]] || refuse 2 "invalid node rank or count"
host_re='^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$'
[[ -z "$MASTER_ADDR" || "$MASTER_ADDR" =~ $host_re ]] || refuse 2 "invalid master address"
[[ -z "$EXCLUDE_HOSTS" || "$EXCLUDE_HOSTS" =~ ^[A-Za-z0-9][A-Za-z0-9.,_-]{0,4095}$ ]] || refuse 2 "invalid exclude hosts"

# --- never restart onto a full disk --------------------------------------------------------------------
if [ -n "$CKPT_DIR" ] && [ -d "$CKPT_DIR" ]; then
  used=$(df -P -k "$CKPT_DIR" 2>/dev/null | awk 'NR==2 {gsub("%","",$5); print $5}')
  iused=$(df -P -i "$CKPT_DIR" 2>/dev/null | awk 'NR==2 {gsub("%","",$5); print $5}')
  [[ "${used:-0}" =~ ^[0-9]+$ ]] && [ "${used:-0}" -ge 98 ] && refuse 3 "disk $CKPT_DIR ${used}% full"
  [[ "${iused:-0}" =~ ^[0-9]+$ ]] && [ "${iused:-0}" -ge 98 ] && refuse 3 "disk $CKPT_DIR out of inodes"
fi

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

# --- stop the previous attempt if anything of it is left (a hung process) -----------------------------
pids=""
if [ -n "$PID_FILE" ] && [ -r "$PID_FILE" ]; then
  p=$(head -c 32 "$PID_FILE" | tr -cd '0-9')
  [ -n "$p" ] && alive_pid "$p" && pids="$p"
fi
if [ -z "$pids" ] && [ -n "$PATTERN" ] && command -v pgrep >/dev/null 2>&1; then
  for p in $(pgrep -f -- "$PATTERN" 2>/dev/null | grep -vx "$$" | head -n 64); do
    alive_pid "$p" && not_pgrep "$p" && pids="$pids $p"
  done
fi
pids="${pids# }"
if [ -n "${pids// /}" ]; then
  say restart.stopping "$pids"
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null
  waited=0
  while [ "$waited" -lt "$STOP_TIMEOUT" ]; do
    left=""
    for p in $pids; do alive_pid "$p" && left="$left $p"; done
    [ -z "$left" ] && break
    sleep 1
    waited=$((waited + 1))
  done
  if [ -n "${left:-}" ]; then
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null
    sleep 2
    for p in $left; do alive_pid "$p" && refuse 3 "process $p would not stop"; done
  fi
  say restart.stopped "$pids"
fi

# --- the latest checkpoint: a `latest` link (or DeepSpeed's `latest` file), else the highest step ------
resume=""
if [ -n "$CKPT_DIR" ] && [ -d "$CKPT_DIR" ]; then
  if [ -L "$CKPT_DIR/latest" ]; then
    resume=$(readlink -f "$CKPT_DIR/latest" 2>/dev/null)
  elif [ -f "$CKPT_DIR/latest" ]; then
    tag=$(head -n 1 "$CKPT_DIR/latest" | tr -cd 'A-Za-z0-9._-')
    [ -n "$tag" ] && [ -e "$CKPT_DIR/$tag" ] && resume="$CKPT_DIR/$tag"
  fi
  if [ -z "$resume" ]; then
    best=-1
    for d in "$CKPT_DIR"/*/; do
      [ -d "$d" ] || continue
      name=$(basename "$d")
      n=$(printf '%s' "$name" | sed -nE 's/^(step|checkpoint|global_step|ckpt|iter)[_-]?0*([0-9]+)$/\2/p')
      [ -n "$n" ] || continue
      if [ "$n" -gt "$best" ]; then
        best=$n
        resume="${d%/}"
      fi
    done
  fi
  path_ok "$resume" || resume=""
fi
# Never start a long run over from step 0 by accident: without a checkpoint, `require` refuses.
if [ -z "$resume" ]; then
  where="${CKPT_DIR:-(no checkpoint_dir known)}"
  [ "$RESUME" = require ] && { say restart.no_checkpoint "$where"; refuse 3 "no checkpoint under $where"; }
  say restart.from_scratch "$where"
fi
say restart.resume_from "$resume"
step=$(basename "${resume:-x}" | sed -nE 's/^[A-Za-z_-]*0*([0-9]+)$/\1/p')
[ -n "$step" ] && say restart.resume_step "$step"

# --- launch, detached, after the backoff delay -----------------------------------------------------------
mkdir -p "$LOG_DIR" 2>/dev/null || LOG_DIR=/tmp
log="$LOG_DIR/$RUN_ID-attempt$ATTEMPT.log"
export TRAINWATCH_RUN_ID="$RUN_ID" TRAINWATCH_ATTEMPT="$ATTEMPT" TRAINWATCH_RESUME_FROM="$resume"
# The command is the operator's configuration; the checkpoint path reaches it as an argument ("$@"), never
# spliced into the command text.
launcher='sleep "$1"; shift; exec bash -c "$TW_LAUNCH_COMMAND \"\$@\"" trainwatch-job "$@"'
as_user=()
if [ -n "$RUN_AS" ] && [ "$RUN_AS" != "$(id -un)" ]; then
  if command -v runuser >/dev/null 2>&1; then as_user=(runuser -u "$RUN_AS" --); else refuse 2 "runuser not available to run as $RUN_AS"; fi
fi
args=()
[ -n "$resume" ] && args=("$resume")
setsid ${as_user[@]+"${as_user[@]}"} env TW_LAUNCH_COMMAND="$COMMAND" TRAINWATCH_RUN_ID="$RUN_ID" \
  TRAINWATCH_ATTEMPT="$ATTEMPT" TRAINWATCH_RESUME_FROM="$resume" TRAINWATCH_NODE_RANK="$NODE_RANK" \
  TRAINWATCH_NNODES="$NNODES" TRAINWATCH_MASTER_ADDR="$MASTER_ADDR" TRAINWATCH_EXCLUDE_HOSTS="$EXCLUDE_HOSTS" \
  bash -c "$launcher" trainwatch-launch "$DELAY" ${args[@]+"${args[@]}"} >>"$log" 2>&1 </dev/null &
say restart.launched_pid "$!"
say restart.delay_seconds "$DELAY"
say restart.log "$log"
say end ok
exit 0
