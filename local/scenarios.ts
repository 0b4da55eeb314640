import type { HeartbeatWriter } from './heartbeatWriter.js';

/** Log text a failing run leaves behind, modelled on real PyTorch / NCCL output. */
export const OOM_TRACEBACK = `Traceback (most recent call last):
  File "/opt/train/train.py", line 214, in <module>
    loss = model(batch).loss
  File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1518, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 77.97 GiB memory in use.`;

export const NCCL_TIMEOUT = `[rank3]:[E1122 10:42:17.123456 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5621, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600039 milliseconds before timing out.
[rank3]:[E1122 10:42:17.124001 ProcessGroupNCCL.cpp:1664] [PG 0 Rank 3] Exception (either an error or timeout) detected by watchdog at work: 5621, last enqueued NCCL work: 5621, last completed NCCL work: 5620.
terminate called after throwing an instance of 'c10::DistBackendError'
  what():  [PG 0 Rank 3] Process group watchdog thread terminated with exception: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5621, OpType=ALLREDUCE) ran for 600039 milliseconds before timing out.`;

/** Lets a scenario wait, and stop early when the local mode ends or a restart replaces its attempt. */
export interface Clock {
  sleep(ms: number): Promise<void>;
  readonly stopped: boolean;
}

/** Trains from `from` to `to` over `seconds`: progress every second, metadata every 2 s, a log line. */
export async function train(
  w: HeartbeatWriter,
  clock: Clock,
  from: number,
  to: number,
  seconds: number,
  total: number,
): Promise<number> {
  let step = from;
  for (let s = 0; s < seconds && !clock.stopped; s++) {
    step = Math.round(from + ((to - from) * (s + 1)) / seconds);
    const loss = 2.2 * Math.exp(-step / 400) + 0.35;
    await w.progress(step, total, loss);
    if (s % 2 === 0) await w.metadata({ status: 'running', phase: 'training' });
    await w.log(`step ${step}/${total} loss=${loss.toFixed(4)} lr=3.0e-04 tokens/s=48211\n`);
    await clock.sleep(1000);
  }
  return step;
}

/** Keeps metadata.json beating while the training loop does nothing: a hung collective, say. */
export async function beatOnly(w: HeartbeatWriter, clock: Clock, seconds: number): Promise<void> {
  for (let s = 0; s < seconds && !clock.stopped; s += 2) {
    await w.metadata({ status: 'running', phase: 'training' });
    await clock.sleep(2000);
  }
}

/** What a simulated instance reports when diagnosed (see local/simulatedInstance.ts). */
type InstanceKind = 'healthy' | 'oom' | 'nccl' | 'hang' | 'gone' | 'xid79';

/**
 * A 4-node job whose node 2 loses a GPU (Xid 79) and goes silent: the other ranks hang in the
 * collective, so metadata.json and three node files still beat while the step stops.
 */
async function fourNodes(w: HeartbeatWriter, c: Clock): Promise<void> {
  const host = (rank: number) => `ip-10-0-1-${20 + rank}`;
  const id = (rank: number) => `i-0a1b2c3d4e5f6011${rank}`;
  const beatNodes = (step: number, dead: number[]) =>
    Promise.all(
      [0, 1, 2, 3]
        .filter((r) => !dead.includes(r))
        .map((r) =>
          w.node(r, {
            nodes: 4,
            instance_id: id(r),
            hostname: host(r),
            step,
            step_time_s: 1.0,
            gpus: Array.from({ length: 8 }, (_, index) => ({
              index,
              util: 96,
              mem_used_mib: 70123,
              mem_total_mib: 81559,
            })),
          }),
        ),
    );
  await w.metadata({
    status: 'running',
    phase: 'training',
    nodes: 4,
    checkpoint_dir: '/checkpoints/llama-70b',
  });
  for (let s = 0; s < 8 && !c.stopped; s++) {
    const step = 10 * (s + 1);
    await w.progress(step, TOTAL, 2.0 - step / 1000);
    if (s % 2 === 0) await Promise.all([w.metadata({}), beatNodes(step, [])]);
    await c.sleep(1000);
  }
  await w.log(
    "NVRM: Xid (PCI:0000:86:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n",
  );
  for (let s = 0; s < 60 && !c.stopped; s += 2) {
    await Promise.all([w.metadata({}), beatNodes(80, [2])]);
    await c.sleep(2000);
  }
}

/** Node `rank` of a simulated multi-node job: its instance and host (`base` keeps jobs apart). */
const nodeOf = (base: number, rank: number) => ({
  instance_id: `i-0a1b2c3d4e5f6${String(base + rank).padStart(4, '0')}`,
  hostname: `ip-10-0-${base / 100}-${20 + rank}`,
});
/** Eight GPUs at `util(index)` %. */
const eightGpus = (util: (index: number) => number) =>
  Array.from({ length: 8 }, (_, index) => ({
    index,
    util: util(index),
    mem_used_mib: 70123,
    mem_total_mib: 81559,
  }));
/** Deterministic noise of ±`amount` (a fraction), different per tick and node: healthy runs are never flat. */
const noise = (tick: number, rank: number, amount: number) => 1 + amount * Math.sin(tick * 1.7 + rank * 2.3);

/**
 * A 4-node job's writes every 2 s (as the Python client's writer thread makes them), on time however long
 * the writes take: progress.json, metadata.json, each node's file from `node(rank)`, and the log if any.
 */
async function fourNodeTicks(
  w: HeartbeatWriter,
  c: Clock,
  ticks: number,
  each: (tick: number) => {
    step: number;
    total: number;
    node: (rank: number) => Record<string, unknown>;
    log?: string;
  },
): Promise<number> {
  let step = 0;
  for (let t = 0; t < ticks && !c.stopped; t++) {
    const began = Date.now();
    const now = each(t);
    step = now.step;
    await Promise.all([
      w.progress(step, now.total, 2.1 * Math.exp(-step / 300) + 0.4),
      w.metadata({}),
      ...[0, 1, 2, 3].map((r) => w.node(r, { nodes: 4, step, ...now.node(r) })),
      ...(now.log ? [w.log(now.log)] : []),
    ]);
    await c.sleep(Math.max(0, 2000 - (Date.now() - began)));
  }
  return step;
}

const EFA_LOG = `NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)
NCCL INFO Using network AWS Libfabric
`;
const SOCKET_LOG = `NCCL INFO NET/OFI Selected Provider is tcp (found 1 nics)
NCCL INFO NET/Socket : Using [0]ens5:10.0.2.20<0>
NCCL INFO Using network Socket
`;

/**
 * A 4-node job whose communicators are rebuilt after 22 s and come back over TCP sockets instead of EFA:
 * every node's tokens/s halves while steps, heartbeats and GPUs all look fine. It completes 28 s later.
 */
async function efaFallback(w: HeartbeatWriter, c: Clock): Promise<void> {
  const [fast, slow] = [11, 14];
  const total = fast * 20 + slow * 10;
  await w.metadata({ status: 'running', phase: 'training', nodes: 4 });
  const step = await fourNodeTicks(w, c, fast + slow, (t) => {
    const sockets = t >= fast;
    const step = t < fast ? 20 * (t + 1) : 20 * fast + 10 * (t + 1 - fast);
    const tokens = (r: number) => Math.round((sockets ? 6_025 : 12_050) * noise(t, r, 0.03));
    return {
      step,
      total,
      log: `${sockets ? SOCKET_LOG : EFA_LOG}step ${step}/${total} tokens/s=${4 * tokens(0)}\n`,
      node: (r) => ({
        ...nodeOf(200, r),
        step_time_s: sockets ? 0.2 : 0.1,
        tokens_per_s: tokens(r),
        gpus: eightGpus((i) => Math.round(95 * noise(t, r + i, 0.03))),
      }),
    };
  });
  if (!c.stopped) await w.complete({ step, final_loss: 0.52 });
}

/**
 * A 4-node job whose nodes each work through their own shard (no collective per step, as in batch
 * inference or embedding): node 3's data loader deadlocks after 10 s. Its 8 GPUs sit at 0 % and its step
 * stops while its heartbeat thread keeps writing its node file, and the run's progress (node 0's) goes on.
 */
async function idleNode(w: HeartbeatWriter, c: Clock): Promise<void> {
  const [ticks, stuckAt] = [29, 5];
  const total = ticks * 20;
  await w.metadata({ status: 'running', phase: 'training', nodes: 4 });
  await fourNodeTicks(w, c, ticks, (t) => ({
    step: 20 * (t + 1),
    total,
    node: (r) => {
      const stuck = r === 3 && t >= stuckAt;
      return {
        ...nodeOf(300, r),
        ...(stuck ? { step: 20 * stuckAt } : {}),
        step_time_s: 0.1,
        gpus: eightGpus((i) => (stuck ? 0 : Math.round(90 * noise(t, r + i, 0.05)))),
      };
    },
  }));
  if (!c.stopped) await w.complete({ step: total, shards: 4 });
}

const SITE = '/opt/conda/lib/python3.11/site-packages';
const frame = (file: string, line: number, fn: string, code: string) => ({ file, line, function: fn, code });
/** The training thread's frames (outermost first) where a DDP step waits: in all_reduce, or in its data loader. */
const WAITING = {
  allReduce: [
    frame('/opt/train/train.py', 97, 'main', 'loss = train_step(batch)'),
    frame('/opt/train/train.py', 88, 'train_step', 'dist.all_reduce(loss)'),
    frame(`${SITE}/torch/distributed/c10d_logger.py`, 81, 'wrapper', 'return func(*args, **kwargs)'),
    frame(`${SITE}/torch/distributed/distributed_c10d.py`, 2806, 'all_reduce', 'work.wait()'),
  ],
  dataLoader: [
    frame('/opt/train/train.py', 95, 'main', 'batch = next(it)'),
    frame(`${SITE}/torch/utils/data/dataloader.py`, 701, '__next__', 'data = self._next_data()'),
    frame(
      `${SITE}/torch/utils/data/dataloader.py`,
      757,
      '_next_data',
      'data = self._dataset_fetcher.fetch(index)',
    ),
    frame('/opt/train/dataset.py', 41, '__getitem__', 'item = self.queue.get()'),
    frame('/opt/conda/lib/python3.11/queue.py', 171, 'get', 'self.not_empty.wait()'),
    frame('/opt/conda/lib/python3.11/threading.py', 327, 'wait', 'waiter.acquire()'),
  ],
};

/**
 * A 4-node DDP job whose node 1's data loader blocks after 10 s (a dead NFS mount under its shard): the
 * other ranks wait for it in all_reduce, every node's heartbeat thread keeps writing, the step stops. Each
 * node's writer thread then writes its Python stacks (protocol v1.2, `stack_after` shortened to 6 s here),
 * and the STALLED alert names node 1's data loader.
 */
async function stackedHang(w: HeartbeatWriter, c: Clock): Promise<void> {
  const [ticks, stuckAt, stackAt] = [20, 5, 8];
  await w.metadata({
    status: 'running',
    phase: 'training',
    nodes: 4,
    checkpoint_dir: '/checkpoints/mixtral',
  });
  await fourNodeTicks(w, c, ticks, (t) => {
    const step = 10 * (Math.min(t, stuckAt) + 1);
    if (t === stackAt)
      void Promise.all(
        [0, 1, 2, 3].map((r) =>
          w.stack(r, {
            step,
            stuck_s: 6,
            threads: [
              {
                name: 'MainThread',
                training: true,
                frames: r === 1 ? WAITING.dataLoader : WAITING.allReduce,
              },
            ],
          }),
        ),
      );
    return {
      step,
      total: TOTAL,
      node: (r) => ({
        ...nodeOf(400, r),
        step_time_s: 0.2,
        gpus: eightGpus((i) => (t > stuckAt ? 0 : 93 + ((r + i) % 5))),
      }),
    };
  });
}

/** One simulated training run: what it does, in order, and what its instance would say. */
export interface Scenario {
  readonly runId: string;
  readonly jobName: string;
  readonly instanceId: string;
  /** What the simulated instance reports when diagnosed (see local/simulatedInstance.ts). */
  readonly instance: InstanceKind;
  /** A multi-node run's other nodes (ranks 1, 2, …): each on its own simulated instance. */
  readonly nodes?: readonly { readonly instanceId: string; readonly instance: InstanceKind }[];
  readonly story: string;
  play(w: HeartbeatWriter, clock: Clock): Promise<void>;
  /** Attempt 2, when the watchdog restarts the run. */
  resume?(w: HeartbeatWriter, clock: Clock, attempt: number): Promise<void>;
}

const TOTAL = 600;

export const SCENARIOS: readonly Scenario[] = [
  {
    runId: 'llama-7b-sft',
    jobName: 'llama-sft',
    instanceId: 'i-0a1b2c3d4e5f60001',
    instance: 'healthy',
    story: 'healthy, completes',
    async play(w, c) {
      await w.metadata({ status: 'starting', phase: 'setup' });
      const step = await train(w, c, 0, TOTAL, 36, TOTAL);
      if (!c.stopped) await w.complete({ step, final_loss: 0.41 });
    },
  },
  {
    runId: 'bert-large-mlm',
    jobName: 'bert-mlm',
    instanceId: 'i-0a1b2c3d4e5f60002',
    instance: 'gone',
    story: 'heartbeats stop (the instance died silently)',
    async play(w, c) {
      await w.metadata({ status: 'running', phase: 'training' });
      await train(w, c, 0, 180, 12, TOTAL);
    },
  },
  {
    runId: 'gpt-neox-20b',
    jobName: 'neox-pretrain',
    instanceId: 'i-0a1b2c3d4e5f60003',
    instance: 'oom',
    story: 'CUDA out of memory: _error',
    async play(w, c) {
      await w.metadata({ status: 'running', phase: 'training' });
      await train(w, c, 0, 140, 10, TOTAL);
      await w.log(`step 140/${TOTAL} loss=1.6021\n${OOM_TRACEBACK}\n`);
      await w.error(OOM_TRACEBACK);
      await w.metadata({ status: 'failed' });
    },
  },
  {
    runId: 'vit-huge-hang',
    jobName: 'vit-pretrain',
    instanceId: 'i-0a1b2c3d4e5f60004',
    instance: 'hang',
    story: 'step stops advancing while metadata beats',
    async play(w, c) {
      await w.metadata({
        status: 'running',
        phase: 'training',
        checkpoint_dir: '/checkpoints/vit-huge-hang',
      });
      await train(w, c, 0, 120, 8, TOTAL);
      await beatOnly(w, c, 120);
    },
    async resume(w, c, attempt) {
      await w.metadata({ status: 'running', phase: 'training', attempt });
      const step = await train(w, c, 100, TOTAL, 20, TOTAL);
      if (!c.stopped) await w.complete({ step, final_loss: 0.47 });
    },
  },
  {
    runId: 'resnet-nccl',
    jobName: 'resnet-ddp',
    instanceId: 'i-0a1b2c3d4e5f60005',
    instance: 'nccl',
    story: 'NCCL watchdog timeout: restartable',
    async play(w, c) {
      await w.metadata({ status: 'running', phase: 'training', checkpoint_dir: '/checkpoints/resnet-nccl' });
      await train(w, c, 0, 200, 10, TOTAL);
      await w.log(`step 200/${TOTAL} loss=1.4410\n${NCCL_TIMEOUT}\n`);
      await w.error(NCCL_TIMEOUT);
      await w.metadata({ status: 'failed' });
    },
    async resume(w, c, attempt) {
      await w.metadata({ status: 'running', phase: 'training', attempt });
      const step = await train(w, c, 150, TOTAL, 22, TOTAL);
      if (!c.stopped) await w.complete({ step, final_loss: 0.44 });
    },
  },
  // Three shards of one sweep whose heartbeats stop in the same second (a bucket-policy change):
  // one grouped Slack/SNS alert, one PagerDuty incident each.
  ...['a', 'b', 'c'].map(
    (shard, i): Scenario => ({
      runId: `lr-sweep-${shard}`,
      jobName: 'lr-sweep',
      instanceId: `i-0a1b2c3d4e5f6010${i}`,
      instance: 'gone',
      story: 'heartbeats stop with two other shards (bucket policy changed)',
      async play(w, c) {
        await w.metadata({ status: 'running', phase: 'training' });
        await train(w, c, 0, 90, 9, TOTAL);
      },
    }),
  ),
  {
    runId: 'llama-70b-4node',
    jobName: 'llama-70b-pretrain',
    instanceId: 'i-0a1b2c3d4e5f60110',
    instance: 'hang',
    nodes: [
      { instanceId: 'i-0a1b2c3d4e5f60111', instance: 'hang' },
      { instanceId: 'i-0a1b2c3d4e5f60112', instance: 'xid79' },
      { instanceId: 'i-0a1b2c3d4e5f60113', instance: 'hang' },
    ],
    story: '4 nodes; node 2 loses a GPU (Xid 79) and goes silent',
    play: fourNodes,
  },
  {
    runId: 'gpt-13b-efa',
    jobName: 'gpt-13b-pretrain',
    instanceId: 'i-0a1b2c3d4e5f60200',
    instance: 'healthy',
    story: '4 nodes; NCCL falls back from EFA to sockets: tokens/s halve',
    play: efaFallback,
  },
  {
    runId: 'clip-embed-4node',
    jobName: 'clip-embed',
    instanceId: 'i-0a1b2c3d4e5f60300',
    instance: 'healthy',
    story: "4 shards; node 3's data loader deadlocks: its GPUs idle, its step stops",
    play: idleNode,
  },
  {
    runId: 'mixtral-4node-hang',
    jobName: 'mixtral-pretrain',
    instanceId: 'i-0a1b2c3d4e5f60400',
    instance: 'hang',
    nodes: [
      { instanceId: 'i-0a1b2c3d4e5f60401', instance: 'hang' },
      { instanceId: 'i-0a1b2c3d4e5f60402', instance: 'hang' },
      { instanceId: 'i-0a1b2c3d4e5f60403', instance: 'hang' },
    ],
    story:
      "4 nodes; node 1's data loader blocks, the others wait in all_reduce: its stack names it; restarted, completes",
    play: stackedHang,
    async resume(w, c, attempt) {
      await w.metadata({ status: 'running', phase: 'training', attempt });
      const step = await train(w, c, 50, TOTAL, 16, TOTAL);
      if (!c.stopped) await w.complete({ step, final_loss: 0.5 });
    },
  },
  {
    runId: 'whisper-pending',
    jobName: 'whisper-ft',
    instanceId: 'i-0a1b2c3d4e5f60006',
    instance: 'gone',
    story: 'never sends a heartbeat (silenced for 25 s: one summary when the silence ends)',
    async play(w) {
      await w.log('downloading dataset shard 1/64 from s3://datasets/librispeech ...\n');
    },
  },
];
