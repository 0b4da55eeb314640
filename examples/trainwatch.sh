# trainwatch heartbeats for bash scripts, with nothing but the AWS CLI (and curl for the instance id).
#
#   export TRAINWATCH_BUCKET=my-trainwatch-bucket TRAINWATCH_RUN_ID=llama-7b-sft
#   source trainwatch.sh
#   tw_start                                    # new attempt; heartbeat every 60 s; SIGTERM recorded
#   if ./train.sh 2> >(tee err.log >&2); then tw_complete; else tail -n 200 err.log | tw_error; fi
#
# In the loop: `tw_progress STEP [TOTAL_STEPS] [LOSS]`, `tw_phase checkpointing` ... `tw_phase training`.
# Optional: TRAINWATCH_PREFIX (default training-runs), TRAINWATCH_INTERVAL (seconds, default 60),
# TRAINWATCH_ATTEMPT (default: one more than the last attempt's), TRAINWATCH_INSTANCE_ID (default: IMDSv2).
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
  local extra=""
  [ -n "${TW_INSTANCE_ID:-}" ] && extra+=",\"instance_id\":$(tw_str "$TW_INSTANCE_ID")"
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

tw_start() {  # a new attempt: clear the last one's end, write metadata, heartbeat in the background
  local previous
  previous=$(aws s3 cp "$TW_BASE/metadata.json" - 2>/dev/null | grep -o '"attempt": *[0-9]*' | grep -o '[0-9]*$')
  TW_ATTEMPT=${TRAINWATCH_ATTEMPT:-$((${previous:-0} + 1))}
  TW_INSTANCE_ID=${TRAINWATCH_INSTANCE_ID:-$(tw_instance_id)}
  TW_STARTED_AT=$(tw_now)
  echo starting >"$TW_DIR/status"; echo setup >"$TW_DIR/phase"
  aws s3 rm "$TW_BASE/_error" --only-show-errors >/dev/null 2>&1
  aws s3 rm "$TW_BASE/_complete" --only-show-errors >/dev/null 2>&1
  tw_metadata
  local parent=$$
  # Detached from our stdout/stderr, so a pipe reading this script ends when the script does.
  # The trap ends the pending sleep too, so tw_end leaves no process behind.
  (
    trap 'kill "$nap" 2>/dev/null; exit 0' TERM
    while kill -0 "$parent" 2>/dev/null; do
      sleep "${TRAINWATCH_INTERVAL:-60}" & nap=$!
      wait "$nap" && kill -0 "$parent" 2>/dev/null && tw_metadata
    done
  ) >/dev/null 2>&1 &
  TW_HEARTBEAT_PID=$!
  trap tw_preempted TERM
  return 0
}

tw_phase() { echo "$1" >"$TW_DIR/phase"; tw_metadata; }

tw_progress() {  # tw_progress STEP [TOTAL_STEPS] [LOSS]
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
  printf '{"run_id":%s,"status":"completed","attempt":%d,"finished_at":"%s"%s}' "$(tw_str "$TRAINWATCH_RUN_ID")" \
    "${TW_ATTEMPT:-${TRAINWATCH_ATTEMPT:-1}}" "$(tw_now)" "${1:+,\"summary\":$1}" | tw_put _complete application/json
  tw_end completed
}

tw_error() {  # tw_error [MESSAGE]; without one, the message is read from stdin (e.g. a log's tail)
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
