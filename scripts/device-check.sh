#!/usr/bin/env bash
# On a real GPU machine: records what trainwatch's GPU readers see, for the tests to replay
# (test/unit/deviceRecordings.test.ts reads them from test/fixtures/device/).
#   bash scripts/device-check.sh OUTDIR      (needs nvidia-smi, and python3 with torch; NVML via nvidia-ml-py)
# Records, with the GPUs idle and then busy under a torch matmul loop:
#   - nvidia-smi's answers to the exact queries of the node file (Python client, CLI) and of diagnose.sh;
#   - the Python client's node file, read through NVML and through nvidia-smi;
#   - lambdas/ssm/diagnose.sh, run as the SSM document runs it (a PID file, a checkpoint folder, a log).
set -u
OUT=${1:?usage: device-check.sh OUTDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
PY=${PYTHON:-python3}
NODE_QUERY=index,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,ecc.errors.uncorrected.volatile.total
DIAG_QUERY=$(sed -n 's/.*--query-gpu=\([^ ]*\) .*/\1/p' "$ROOT/lambdas/ssm/diagnose.sh" | head -n 1)
WORK=$(mktemp -d)
mkdir -p "$WORK/ckpt/step_1200" "$WORK/ckpt/step_2400"
printf 'step 2400 loss 1.93\n' >"$WORK/train.log"

node_files() { # $1: idle|busy
  for source in nvml nvidia-smi; do
    PYTHONPATH="$ROOT/clients/python/src" "$PY" - "$source" >"$OUT/node-$source-$1.json" <<'EOF'
import sys, time
from trainwatch._gpus import GpuSampler
from trainwatch._node import NodeBeat
sampler = GpuSampler()
if sys.argv[1] == "nvidia-smi":
    sampler._source = "nvidia-smi"  # skip NVML: the fallback a node without nvidia-ml-py takes
beat = NodeBeat(node_rank=0, nodes=1, gpus=sampler)
for step in range(3):  # three samples a second apart: idle_s counts from the first idle one
    beat.record(time.monotonic(), step * 10, {"samples": 320})
    body = beat.body(lambda: "i-0123456789abcdef0")
    time.sleep(1)
sys.stdout.write(body.decode())
EOF
  done
}

record() { # $1: idle|busy
  nvidia-smi --query-gpu="$NODE_QUERY" --format=csv,noheader,nounits >"$OUT/nvidia-smi-node-$1.csv" 2>&1
  nvidia-smi --query-gpu="$DIAG_QUERY" --format=csv,noheader,nounits >"$OUT/nvidia-smi-diagnose-$1.csv" 2>&1
  node_files "$1"
  TW_RUN_ID=device-check TW_PID_FILE="$WORK/train.pid" TW_CHECKPOINT_DIR="$WORK/ckpt" TW_LOG_PATH="$WORK/train.log" \
    TW_TAIL_LINES=20 bash "$ROOT/lambdas/ssm/diagnose.sh" >"$OUT/diagnose-$1.txt" 2>"$OUT/diagnose-$1.stderr"
}

nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1
echo 999999 >"$WORK/train.pid" # no such process: the idle recording sees a dead run
record idle

cat >"$WORK/load.py" <<'EOF'
import sys, time, torch
a = torch.randn(8192, 8192, device="cuda")
end = time.time() + float(sys.argv[1])
while time.time() < end:
    (a @ a).sum().item()
EOF
"$PY" "$WORK/load.py" 60 &
echo $! >"$WORK/train.pid"
sleep 15 # CUDA context up and the loop running
record busy
kill "$(cat "$WORK/train.pid")" 2>/dev/null
wait
rm -rf "$WORK"
ls -l "$OUT"
