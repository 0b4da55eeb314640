#!/usr/bin/env bash
# On a real GPU machine: records what trainwatch's GPU readers see, and real runs of the Python client, for the
# tests to replay (test/unit/deviceRecordings.test.ts reads them from test/fixtures/device/).
#   bash scripts/device-check.sh OUTDIR [all|gpus|runs]   (needs nvidia-smi, and python3 with torch; NVML via
#                                                          nvidia-ml-py; `runs` takes about 12 minutes)
# gpus: with the GPUs idle and then busy under a torch matmul loop, records
#   - nvidia-smi's answers to the exact queries of the node file (Python client, CLI) and of diagnose.sh;
#   - the Python client's node file, read through NVML and through nvidia-smi;
#   - lambdas/ssm/diagnose.sh, run as the SSM document runs it (a PID file, a checkpoint folder, a log).
# runs: real training processes with the Python client, every S3 write it makes kept in order (no network: the
# client writes through a stand-in S3 client into OUTDIR/run-NAME/; see tw_record.py below):
#   - hang (CPU only: runs without a GPU, e.g. PYTHON=venv/bin/python3 with torch from PyPI): torchrun, two
#     single-process "nodes" on gloo; node 1's data loader worker blocks for good while
#     node 0 waits in all_reduce: both nodes' stacks/{N}.json (written, rewritten) and node files;
#   - frozen (CPU only): the same job with node 1's process stopped whole (SIGSTOP) at step 20: node 0's stack
#     in all_reduce, node 1 silent;
#   - cuda-hang: a CUDA kernel that never ends (torch.cuda._sleep) under `.item()`: the stacks of a thread
#     blocked in CUDA, node files with the GPU busy and no step;
#   - slow-loader: steps at full speed, then a data loader slowed 1000x (1.5 s a batch, GPU idle): node files
#     whose rates should follow within one interval, and no stacks (slow is not stuck).
#   and on the client's DEFAULT settings (interval 60 s, stack_after 60 s following the cadence, stacks rewritten
#   every 5 minutes; no TRAINWATCH_* setting), CPU only, torchrun with two single-process "nodes" on gloo, steps
#   of ~0.5 s for ~4 minutes (a cadence history), then (all three at once, about 12 minutes in all):
#   - hang-default: node 1's data loader blocks for good while node 0 waits in all_reduce; recorded 6.5 minutes
#     more (stacks ~60 s in, rewritten ~6 minutes in), then SIGKILL;
#   - pg-timeout: the same, with init_process_group(timeout=150 s): node 0's all_reduce raises after the stacks
#     exist and the client writes _error; recorded until the job ends (SIGKILL 10 minutes after the launch at most);
#   - frozen-rank0: node 0 (global rank 0, the writer of metadata.json and progress.json) stops itself whole
#     (SIGSTOP) while node 1 beats on and waits in all_reduce; recorded 4 minutes more, then SIGKILL.
#   TW_RUNS="hang-default frozen-rank0" bash scripts/device-check.sh OUT runs records only those (of hang, frozen,
#   cuda-hang, slow-loader, hang-default, pg-timeout, frozen-rank0; default all).
set -u
OUT=${1:?usage: device-check.sh OUTDIR [all|gpus|runs]}
MODE=${2:-all}
case $MODE in all | gpus | runs) ;; *) echo "device-check.sh: unknown mode $MODE (all, gpus or runs)" >&2; exit 2 ;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export PYTHONPATH="$ROOT/clients/python/src${PYTHONPATH:+:$PYTHONPATH}"
NODE_QUERY=index,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,ecc.errors.uncorrected.volatile.total
# The Python client's full query since v1.2 (clocks, power limit, throttle reasons), and the same with the
# throttle reasons' newer name, so the recording says which names this driver accepts.
PY_QUERY=$("$PY" -c 'from trainwatch._gpus import QUERY; print(QUERY)')
PY_QUERY_EVENTS=${PY_QUERY//clocks_throttle_reasons./clocks_event_reasons.}
DIAG_QUERY=$(sed -n 's/.*--query-gpu=\([^ ]*\) .*/\1/p' "$ROOT/lambdas/ssm/diagnose.sh" | head -n 1)
WORK=$(mktemp -d)
mkdir -p "$WORK/ckpt/step_1200" "$WORK/ckpt/step_2400"
printf 'step 2400 loss 1.93\n' >"$WORK/train.log"

node_files() { # $1: idle|busy
  for source in nvml nvidia-smi; do
    "$PY" - "$source" >"$OUT/node-$source-$1.json" <<'EOF'
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
  nvidia-smi --query-gpu="$PY_QUERY" --format=csv,noheader,nounits >"$OUT/nvidia-smi-clocks-$1.csv" 2>&1
  nvidia-smi --query-gpu="$PY_QUERY_EVENTS" --format=csv,noheader,nounits >"$OUT/nvidia-smi-clocks-events-$1.csv" 2>&1
  nvidia-smi --query-gpu="$DIAG_QUERY" --format=csv,noheader,nounits >"$OUT/nvidia-smi-diagnose-$1.csv" 2>&1
  node_files "$1"
  TW_RUN_ID=device-check TW_PID_FILE="$WORK/train.pid" TW_CHECKPOINT_DIR="$WORK/ckpt" TW_LOG_PATH="$WORK/train.log" \
    TW_TAIL_LINES=20 bash "$ROOT/lambdas/ssm/diagnose.sh" >"$OUT/diagnose-$1.txt" 2>"$OUT/diagnose-$1.stderr"
}

gpus() {
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
}

wanted() { # $1: a recording's name; true when TW_RUNS (default: all) names it
  [ -z "${TW_RUNS:-}" ] || [[ " $TW_RUNS " == *" $1 "* ]]
}

# On the client's defaults: $1 the recording (its mode), $2 a port, $3 seconds to the fault, $4 seconds in all, from
# the launch (then every process of the job left is killed with SIGKILL; a job may end sooner). The fault comes $3 s after the process group is up (TW_FAULT_AFTER).
record_default() {
  local dir="$OUT/run-$1"
  mkdir -p "$dir"
  for node in 0 1; do
    (cd "$WORK" && env -u TRAINWATCH_STACK_AFTER -u TRAINWATCH_STACKS TW_FAULT_AFTER="$3" \
      PYTHONPATH="$WORK:$PYTHONPATH" timeout -s KILL "$4" "$PY" -m torch.distributed.run --nnodes=2 \
      --node-rank=$node --nproc-per-node=1 --master-addr=127.0.0.1 --master-port="$2" defaults.py "$1" "$dir" \
      >"$dir/node$node.log" 2>&1) &
  done
  local deadline=$((SECONDS + $4))
  while [ $SECONDS -lt $deadline ] && [ -n "$(jobs -rp)" ]; do sleep 2; done
  for pidfile in "$dir"/pid-*; do # the training processes, which outlive a killed torchrun, and their data loader
    # workers (torchrun starts each training process in a session, so a group, of its own)
    [ -f "$pidfile" ] && { kill -KILL -- "-$(cat "$pidfile")" || kill -KILL "$(cat "$pidfile")"; } 2>/dev/null
    rm -f "$pidfile"
  done
  wait
  return 0
}

runs() {
  # A stand-in S3 client: each object lands in ROOT/live/KEY (deleted on delete), and every write and delete, in
  # order, in ROOT/ops-PID.jsonl (time, op, key, size) with the written bytes in ROOT/writes/.
  cat >"$WORK/tw_record.py" <<'EOF'
import json, os, threading, time

class NoSuchKey(Exception):
    response = {"Error": {"Code": "NoSuchKey"}}

class FileS3:
    def __init__(self, root):
        self.root, self.lock, self.n = root, threading.Lock(), 0
        os.makedirs(os.path.join(root, "writes"), exist_ok=True)

    def _log(self, op, key, body=None):
        with self.lock:
            self.n += 1
            at = time.time()
            if body is not None:
                name = f"{at:.3f}-{os.getpid()}-{self.n:05d}-{key.replace('/', '_')}"
                with open(os.path.join(self.root, "writes", name), "wb") as f:
                    f.write(body)
            with open(os.path.join(self.root, f"ops-{os.getpid()}.jsonl"), "a") as f:
                f.write(json.dumps({"t": round(at, 3), "op": op, "key": key, "bytes": None if body is None else len(body)}) + "\n")

    def put_object(self, Bucket, Key, Body, ContentType=""):
        path = os.path.join(self.root, "live", Key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(Body)
        self._log("put", Key, Body)

    def delete_object(self, Bucket, Key):
        try:
            os.remove(os.path.join(self.root, "live", Key))
        except FileNotFoundError:
            pass
        self._log("delete", Key)

    def get_object(self, Bucket, Key):
        raise NoSuchKey(Key)  # every recording is a first attempt

def watch_defaults(run_id, root):
    """The client as a user's three lines give it: only the stand-in S3 client differs."""
    import trainwatch
    return trainwatch.watch(run_id, "recordings", s3_client=FileS3(root))

def watch(run_id, root, **options):
    import trainwatch, trainwatch._stacks
    trainwatch._stacks.REWRITE_EVERY = 20.0  # 5 minutes in production: a recording cannot wait that long
    options = {"interval": 3, "stack_after": 10, "handle_sigterm": False, **options}
    return trainwatch.watch(run_id, "recordings", s3_client=FileS3(root), **options)
EOF

  # On the defaults (see the top): one training script, the fault chosen by its first argument.
  cat >"$WORK/defaults.py" <<'EOF'
import os, signal, sys, threading, time
from datetime import timedelta
import torch, torch.distributed as dist
from tw_record import watch_defaults
mode, root = sys.argv[1], sys.argv[2]
dist.init_process_group("gloo", **({"timeout": timedelta(seconds=150)} if mode == "pg-timeout" else {}))
fault_at = time.time() + float(os.environ["TW_FAULT_AFTER"])  # both nodes: the rendezvous ends together
rank = dist.get_rank()
with open(os.path.join(root, f"pid-{rank}"), "w") as f:
    f.write(str(os.getpid()))

class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 10**7
    def __getitem__(self, i):
        if mode != "frozen-rank0" and rank == 1 and time.time() >= fault_at:
            threading.Event().wait()  # a worker stuck for good (a dead NFS mount, a deadlocked decoder)
        return torch.randn(64)

batches = iter(torch.utils.data.DataLoader(Data(), batch_size=8, num_workers=2))  # workers forked before our thread
with watch_defaults(f"device-{mode}", root) as run:
    for step, batch in enumerate(batches):
        if mode == "frozen-rank0" and rank == 0 and time.time() >= fault_at:
            os.kill(os.getpid(), signal.SIGSTOP)  # frozen whole: its writer thread (metadata, progress) too
        loss = batch.sum()
        dist.all_reduce(loss)
        run.progress(step, samples=8)
        time.sleep(0.5)
EOF
  defaults=()
  if wanted hang-default; then record_default hang-default 29521 240 720 & defaults+=($!); fi
  if wanted pg-timeout; then record_default pg-timeout 29522 240 600 & defaults+=($!); fi
  if wanted frozen-rank0; then record_default frozen-rank0 29523 240 560 & defaults+=($!); fi

  # hang: node 1's data loader worker never returns batch 20; node 0 then waits in all_reduce for it.
  cat >"$WORK/hang.py" <<'EOF'
import sys, threading, time, torch, torch.distributed as dist
from tw_record import watch
dist.init_process_group("gloo")
rank = dist.get_rank()

class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 10**6
    def __getitem__(self, i):
        if rank == 1 and i >= 20 * 8:
            threading.Event().wait()  # a worker stuck for good (a dead NFS mount, a deadlocked decoder)
        return torch.randn(64)

batches = iter(torch.utils.data.DataLoader(Data(), batch_size=8, num_workers=2))  # workers forked before our thread
with watch("device-hang", sys.argv[1]) as run:
    for step, batch in enumerate(batches):
        loss = batch.sum()
        dist.all_reduce(loss)
        run.progress(step, samples=8)
        time.sleep(0.05)
EOF
  if wanted hang; then
    mkdir -p "$OUT/run-hang"
    nodes=()
    for node in 0 1; do
      (cd "$WORK" && PYTHONPATH="$WORK:$PYTHONPATH" timeout -k 5 75 "$PY" -m torch.distributed.run --nnodes=2 \
        --node-rank=$node --nproc-per-node=1 --master-addr=127.0.0.1 --master-port=29517 hang.py "$OUT/run-hang" \
        >"$OUT/run-hang/node$node.log" 2>&1) &
      nodes+=($!)
    done
    wait "${nodes[@]}"
  fi

  # frozen: the same job, but node 1's process is stopped whole at step 20 (SIGSTOP: its writer thread too):
  # node 0 waits in all_reduce and writes its stack; node 1 writes nothing more.
  cat >"$WORK/frozen.py" <<'EOF'
import os, signal, sys, time, torch, torch.distributed as dist
from tw_record import watch
dist.init_process_group("gloo")
rank = dist.get_rank()
with watch("device-frozen", sys.argv[1]) as run:
    for step in range(10**6):
        if rank == 1 and step == 20:
            os.kill(os.getpid(), signal.SIGSTOP)  # frozen whole, like a host that stopped scheduling it
        loss = torch.randn(64).sum()
        dist.all_reduce(loss)
        run.progress(step, samples=8)
        time.sleep(0.05)
EOF
  if wanted frozen; then
    mkdir -p "$OUT/run-frozen"
    nodes=()
    for node in 0 1; do
      (cd "$WORK" && PYTHONPATH="$WORK:$PYTHONPATH" timeout -s KILL 75 "$PY" -m torch.distributed.run --nnodes=2 \
        --node-rank=$node --nproc-per-node=1 --master-addr=127.0.0.1 --master-port=29518 frozen.py "$OUT/run-frozen" \
        >"$OUT/run-frozen/node$node.log" 2>&1) &
      nodes+=($!)
    done
    wait "${nodes[@]}"
    pkill -KILL -f "frozen.py $OUT/run-frozen" 2>/dev/null || true
  fi

  # cuda-hang: 20 steps, then a kernel that spins for minutes; `.item()` waits for it.
  cat >"$WORK/cuda_hang.py" <<'EOF'
import sys, torch
from tw_record import watch
x = torch.randn(4096, 4096, device="cuda")
with watch("device-cuda-hang", sys.argv[1]) as run:
    for step in range(20):
        (x @ x).sum().item()
        run.progress(step, samples=32)
    torch.cuda._sleep(2**40)  # about ten minutes of clock cycles on one SM
    (x @ x).sum().item()
    run.progress(20, samples=32)
EOF
  if wanted cuda-hang; then
    mkdir -p "$OUT/run-cuda-hang"
    (cd "$WORK" && PYTHONPATH="$WORK:$PYTHONPATH" timeout -k 5 50 "$PY" cuda_hang.py "$OUT/run-cuda-hang" \
      >"$OUT/run-cuda-hang/process.log" 2>&1)
  fi

  # slow-loader: 20 s at full speed on the GPU, then each batch waits 1.5 s for data (the GPU idles).
  cat >"$WORK/slow_loader.py" <<'EOF'
import sys, time, torch
from tw_record import watch
slow_from = time.time() + 20

class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 10**7
    def __getitem__(self, i):
        if time.time() > slow_from:
            time.sleep(1.5 / 32)
        return torch.randn(1024)

loader = torch.utils.data.DataLoader(Data(), batch_size=32, num_workers=0)
w = torch.randn(1024, 1024, device="cuda")
with watch("device-slow-loader", sys.argv[1], interval=5) as run:
    print(f"slowdown at {slow_from:.3f}", flush=True)
    for step, batch in enumerate(loader):
        (batch.cuda() @ w).sum().item()
        run.progress(step, samples=32)
        if time.time() > slow_from + 35:
            break
EOF
  if wanted slow-loader; then
    mkdir -p "$OUT/run-slow-loader"
    (cd "$WORK" && PYTHONPATH="$WORK:$PYTHONPATH" timeout -k 5 90 "$PY" slow_loader.py "$OUT/run-slow-loader" \
      >"$OUT/run-slow-loader/process.log" 2>&1)
  fi
  [ ${#defaults[@]} -eq 0 ] || wait "${defaults[@]}"
}

case $MODE in
  all) gpus; runs ;;
  gpus) gpus ;;
  runs) runs ;;
esac
rm -rf "$WORK"
ls -lR "$OUT"
