# trainwatch heartbeats for bash scripts, with nothing but the AWS CLI (and curl for the instance id).
#
#   export TRAINWATCH_BUCKET=my-trainwatch-bucket TRAINWATCH_RUN_ID=llama-7b-sft
#   source trainwatch.sh
#   tw_start                                    # new attempt; heartbeat every 60 s; SIGTERM recorded
#   if ./train.sh 2> >(tee err.log >&2); then tw_complete; else tail -n 200 err.log | tw_error; fi
#
# In the loop: `tw_progress STEP [TOTAL_STEPS] [LOSS]`, `tw_phase checkpointing` ... `tw_phase training`.
# Optional: TRAINWATCH_PREFIX (default training-runs), TRAINWATCH_INTERVAL (seconds, default 60),
# TRAINWATCH_ATTEMPT (default: one more than the last attempt's), TRAINWATCH_INSTANCE_ID (default: IMDSv2),
# TRAINWATCH_NODE_FILES=0 (no nodes/{node_rank}.json).
# Multi-node (protocol v1.1): source it on every node. Rank 0 (RANK, else SLURM_PROCID, else LOCAL_RANK) writes
# the run's files; every node's local rank 0 also writes nodes/{node_rank}.json each interval, with nvidia-smi's
# GPU readings. Node rank: GROUP_RANK, NODE_RANK, SLURM_NODEID, else RANK / LOCAL_WORLD_SIZE; count: NNODES,
# SLURM_NNODES, else WORLD_SIZE / LOCAL_WORLD_SIZE; local rank: LOCAL_RANK, SLURM_LOCALID. None set: node 0 of 1.
# Sends no stacks (protocol v1.2's stacks/{node_rank}.json): a shell cannot see the training process's threads.
# Every function returns 0 even when S3 is unreachable (it says so on stderr): training goes on.

: "${TRAINWATCH_PREFIX:=training-runs}"
TW_BASE="s3://${TRAINWATCH_BUCKET:?set TRAINWATCH_BUCKET}/${TRAINWATCH_PREFIX%/}/${TRAINWATCH_RUN_ID:?set TRAINWATCH_RUN_ID}"
case "$TRAINWATCH_RUN_ID" in *..* | */*) echo "trainwatch: bad run id $TRAINWATCH_RUN_ID" >&2; return 1 2>/dev/null || exit 1 ;; esac
TW_DIR=$(mktemp -d)  # status and phase live in files, so the background heartbeat sees changes
echo running >"$TW_DIR/status"; echo training >"$TW_DIR/phase"

tw_now() { date -u +%Y-%m-%dT%H:%M:%SZ; }
tw_str() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "${s//$'\n'/\\n}"; }  # a JSON string

tw_put() {  # tw_put FILE CONTENT-TYPE < body
  aws s3 cp - "$TW_BASE/$1" --content-type "$2" --only-show-errors >/dev/null ||
    echo "trainwatch: could not write $TW_BASE/$1" >&2
  return 0
}

tw_metadata() {  # writes metadata.json from the state files
  [ "${TW_RUN_FILES:-1}" = 1 ] || return 0
  local extra=""
  [ -n "${TW_INSTANCE_ID:-}" ] && extra+=",\"instance_id\":$(tw_str "$TW_INSTANCE_ID")"
  [ -n "${TW_NODES:-}" ] && extra+=",\"nodes\":$TW_NODES"
  [ -n "${TRAINWATCH_JOB_NAME:-}" ] && extra+=",\"job_name\":$(tw_str "$TRAINWATCH_JOB_NAME")"
  [ -s "$TW_DIR/finished_at" ] && extra+=",\"finished_at\":\"$(cat "$TW_DIR/finished_at")\""
  printf '{"run_id":%s,"status":"%s","phase":%s,"last_update":"%s","started_at":"%s","attempt":%d,"client":"trainwatch-bash"%s}' \
    "$(tw_str "$TRAINWATCH_RUN_ID")" "$(cat "$TW_DIR/status")" "$(tw_str "$(cat "$TW_DIR/phase")")" "$(tw_now)" \
    "${TW_STARTED_AT:=$(tw_now)}" "${TW_ATTEMPT:=${TRAINWATCH_ATTEMPT:-1}}" "$extra" | tw_put metadata.json application/json
}

tw_instance_id() {  # IMDSv2, one second at most each step; nothing off EC2
  [ "${AWS_EC2_METADATA_DISABLED:-}" = true ] && return 0
  local imds=${AWS_EC2_METADATA_SERVICE_ENDPOINT:-http://169.254.169.254} token
  token=$(curl -sf -m 1 -X PUT "$imds/latest/api/token" -H "X-aws-ec2-metadata-token-ttl-seconds: 60") &&
    curl -sf -m 1 -H "X-aws-ec2-metadata-token: $token" "$imds/latest/meta-data/instance-id"
  return 0
}

tw_int() { case ${1:-} in '' | *[!0-9]* | ??????????*) return 1 ;; esac; printf '%s' "$((10#$1))"; }  # 0..999999999

tw_first() {  # tw_first LEAST VAR...: the first variable that holds a whole number >= LEAST
  local least=$1 name value; shift
  for name in "$@"; do
    value=$(tw_int "${!name:-}") && [ "$value" -ge "$least" ] && { printf '%s' "$value"; return 0; }
  done
  return 1
}

tw_topology() {  # TW_RANK, TW_NODE_RANK (empty: this process writes no node file), TW_NODES, TW_LOCAL_RANK
  local rank world lw
  rank=$(tw_first 0 RANK) || rank=""; world=$(tw_first 1 WORLD_SIZE) || world=""; lw=$(tw_first 1 LOCAL_WORLD_SIZE) || lw=""
  TW_RANK=$(tw_first 0 RANK SLURM_PROCID LOCAL_RANK) || TW_RANK=0
  TW_LOCAL_RANK=$(tw_first 0 LOCAL_RANK SLURM_LOCALID) || TW_LOCAL_RANK=""
  [ -z "$TW_LOCAL_RANK" ] && [ -n "$rank" ] && [ -n "$lw" ] && TW_LOCAL_RANK=$((rank % lw))
  TW_NODE_RANK=$(tw_first 0 GROUP_RANK NODE_RANK SLURM_NODEID) || TW_NODE_RANK=""
  [ -z "$TW_NODE_RANK" ] && [ -n "$rank" ] && [ -n "$lw" ] && TW_NODE_RANK=$((rank / lw))
  TW_NODES=$(tw_first 1 NNODES SLURM_NNODES) || TW_NODES=""
  [ -z "$TW_NODES" ] && [ -n "$world" ] && [ -n "$lw" ] && TW_NODES=$((world / lw > 0 ? world / lw : 1))
  if [ -z "$rank$TW_LOCAL_RANK$TW_NODE_RANK" ]; then TW_NODE_RANK=0 TW_LOCAL_RANK=0 TW_NODES=${TW_NODES:-1}; fi
  [ "$rank" = 0 ] && TW_NODE_RANK=${TW_NODE_RANK:-0} TW_LOCAL_RANK=${TW_LOCAL_RANK:-0}
  [ -n "$TW_NODE_RANK" ] && [ "$TW_NODE_RANK" -ge "${TW_NODES:-4096}" ] && TW_NODE_RANK=""
  [ -n "$TW_NODES" ] && [ "$TW_NODES" -gt 4096 ] && TW_NODES=""
  [ "$TW_LOCAL_RANK" = 0 ] && [ "${TRAINWATCH_NODE_FILES:-1}" != 0 ] || TW_NODE_RANK=""
  return 0
}

tw_gpus() {  # ,"gpus":[...] from nvidia-smi, or ,"gpu_error":"..." when it fails; nothing without nvidia-smi
  command -v nvidia-smi >/dev/null 2>&1 || return 0
  local out rc
  out=$(timeout 5 nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,ecc.errors.uncorrected.volatile.total --format=csv,noheader,nounits 2>&1)
  rc=$?
  if [ "$rc" -ne 0 ]; then
    [ "$rc" = 124 ] && out="did not answer within 5s" || out="exit $rc: $(printf '%s' "$out" | head -n 1)"
    printf ',"gpu_error":%s' "$(tw_str "nvidia-smi $(printf '%s' "$out" | tr -cd "A-Za-z0-9 ._:,()'/-" | cut -c1-250)")"
    return 0
  fi
  # Only digits and a few safe characters reach the JSON: the readings are data, never code.
  printf '%s\n' "$out" | awk -F', *' '
    BEGIN { split("index util mem_used_mib mem_total_mib temp_c power_w ecc_uncorrected", f, " ") }
    NF == 7 && $1 ~ /^[0-9]+$/ {
      g = "{\"index\":" ($1 + 0); err = ""
      for (i = 2; i <= 7; i++) {
        if ($i ~ /^[0-9]+$/) g = g ",\"" f[i] "\":" ($i + 0)
        else if ($i ~ /^[0-9]+\.[0-9]+$/) g = g ",\"" f[i] "\":" (i == 7 ? int($i) : sprintf("%.1f", $i))
        else if ($i ~ /^\[/ && $i !~ /^\[(N\/A|Not Supported)\]$/ && err == "") {
          err = $i; gsub(/^\[|\]$/, "", err); gsub(/[^A-Za-z0-9 ._:-]/, "", err)
        }
      }
      if (err != "") g = g ",\"error\":\"" substr(err, 1, 200) "\""
      out = out (out == "" ? "" : ",") g "}"
    }
    END { if (out != "") printf ",\"gpus\":[%s]", out }'
}

tw_step_time() {  # the median seconds per step over the last progress calls on this node
  [ -s "$TW_DIR/steps" ] || return 1
  awk 'NR > 1 && $2 > s && $1 > t { d[n++] = ($1 - t) / ($2 - s) } { t = $1; s = $2 }
    END { if (!n) exit 1; for (i = 1; i < n; i++) for (j = i; j > 0 && d[j-1] > d[j]; j--) { x = d[j]; d[j] = d[j-1]; d[j-1] = x }
          printf "%.4f", n % 2 ? d[int(n/2)] : (d[n/2-1] + d[n/2]) / 2 }' "$TW_DIR/steps"
}

tw_node() {  # writes this node's nodes/{node_rank}.json now (the background heartbeat does it every interval)
  [ -n "${TW_NODE_RANK:-}" ] || return 0
  local extra="" host step_time
  [ -n "${TW_NODES:-}" ] && extra+=",\"nodes\":$TW_NODES"
  [ -n "${TW_INSTANCE_ID:-}" ] && extra+=",\"instance_id\":$(tw_str "$TW_INSTANCE_ID")"
  host=$(hostname 2>/dev/null)
  [[ ${#host} -le 253 && $host =~ ^[A-Za-z0-9][A-Za-z0-9_-]{0,62}(\.[A-Za-z0-9_-]{1,63})*$ ]] && extra+=",\"hostname\":\"$host\""
  [ -s "$TW_DIR/steps" ] && extra+=",\"step\":$(tail -n 1 "$TW_DIR/steps" | cut -d ' ' -f 2)"
  step_time=$(tw_step_time) && extra+=",\"step_time_s\":$step_time"
  printf '{"node_rank":%d%s%s,"last_updated":"%s"}' "$TW_NODE_RANK" "$extra" "$(tw_gpus)" "$(tw_now)" |
    tw_put "nodes/$TW_NODE_RANK.json" application/json
}

tw_start() {  # a new attempt: clear the last one's end, write metadata, heartbeat in the background
  tw_topology
  TW_INSTANCE_ID=${TRAINWATCH_INSTANCE_ID:-$(tw_instance_id)}
  if [ "$TW_RANK" != 0 ]; then  # another rank: at most this node's file, in the background
    TW_RUN_FILES=0
    [ -n "$TW_NODE_RANK" ] && tw_beat
    return 0
  fi
  TW_RUN_FILES=1
  local previous
  previous=$(aws s3 cp "$TW_BASE/metadata.json" - 2>/dev/null | grep -o '"attempt": *[0-9]*' | grep -o '[0-9]*$')
  TW_ATTEMPT=${TRAINWATCH_ATTEMPT:-$((${previous:-0} + 1))}
  TW_STARTED_AT=$(tw_now)
  echo starting >"$TW_DIR/status"; echo setup >"$TW_DIR/phase"
  aws s3 rm "$TW_BASE/_error" --only-show-errors >/dev/null 2>&1
  aws s3 rm "$TW_BASE/_complete" --only-show-errors >/dev/null 2>&1
  tw_metadata
  tw_beat
  trap tw_preempted TERM
  return 0
}

tw_beat() {  # the background heartbeat: metadata (rank 0) and this node's file, every interval
  tw_node
  local parent=$$
  # Detached from our stdout/stderr, so a pipe reading this script ends when the script does.
  # The trap ends the pending sleep too, so tw_end leaves no process behind.
  (
    trap 'kill "$nap" 2>/dev/null; exit 0' TERM
    while kill -0 "$parent" 2>/dev/null; do
      sleep "${TRAINWATCH_INTERVAL:-60}" & nap=$!
      wait "$nap" && kill -0 "$parent" 2>/dev/null && { tw_metadata; tw_node; }
    done
  ) >/dev/null 2>&1 &
  TW_HEARTBEAT_PID=$!
}

tw_phase() { echo "$1" >"$TW_DIR/phase"; tw_metadata; }

tw_progress() {  # tw_progress STEP [TOTAL_STEPS] [LOSS]
  # This node's step timing: the last 17 calls' (seconds, step), for the node file's median step time.
  local step
  step=$(tw_int "$1") &&
    { [ -f "$TW_DIR/steps" ] && tail -n 16 "$TW_DIR/steps"; echo "$(date +%s.%N) $step"; } >"$TW_DIR/steps.new" &&
    mv "$TW_DIR/steps.new" "$TW_DIR/steps"
  [ "${TW_RUN_FILES:-1}" = 1 ] || return 0
  [ "$(cat "$TW_DIR/status")" = starting ] && { echo running >"$TW_DIR/status"; echo training >"$TW_DIR/phase"; tw_metadata; }
  printf '{"step":%d%s%s,"last_updated":"%s"}' "$1" "${2:+,\"total_steps\":$2}" "${3:+,\"loss\":$3}" "$(tw_now)" |
    tw_put progress.json application/json
}

tw_end() {  # tw_end STATUS: stop the heartbeat, write the final metadata
  [ -n "${TW_HEARTBEAT_PID:-}" ] && kill "$TW_HEARTBEAT_PID" 2>/dev/null
  TW_HEARTBEAT_PID=""
  echo "$1" >"$TW_DIR/status"; tw_now >"$TW_DIR/finished_at"
  tw_metadata
}

tw_complete() {  # tw_complete ['{"json":"summary"}']
  [ "${TW_RUN_FILES:-1}" = 1 ] || { tw_end completed; return 0; }
  printf '{"run_id":%s,"status":"completed","attempt":%d,"finished_at":"%s"%s}' "$(tw_str "$TRAINWATCH_RUN_ID")" \
    "${TW_ATTEMPT:-${TRAINWATCH_ATTEMPT:-1}}" "$(tw_now)" "${1:+,\"summary\":$1}" | tw_put _complete application/json
  tw_end completed
}

tw_error() {  # tw_error [MESSAGE]; without one, the message is read from stdin (e.g. a log's tail)
  [ "${TW_RUN_FILES:-1}" = 1 ] || { [ $# -gt 0 ] || cat >/dev/null; tw_end failed; return 0; }
  { if [ $# -gt 0 ]; then printf '%s\n' "$*"; else cat; fi; } | tail -c 65536 | tw_put _error 'text/plain; charset=utf-8'
  tw_end failed
}

tw_preempted() {  # the SIGTERM trap: record, then die of SIGTERM as bash would have
  printf 'Preempted: received SIGTERM (signal 15): spot interruption, scancel, or shutdown.\n' |
    tw_put _error 'text/plain; charset=utf-8'
  tw_end preempted
  trap - TERM
  kill -TERM $$
}
