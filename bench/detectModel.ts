// A simulated training run for the detection bench (bench/detectSim.ts): its training thread's progress()
// calls, the healthy pauses and the fault, and every S3 write the Python client makes of it (metadata.json,
// progress.json, nodes/{rank}.json with the v1.3 cadence fields, stacks/{rank}.json), each landing after its
// own S3 delay through the client's one writer thread per process. Pure and seeded (mulberry32).
//
// The magnitudes were fixed before any result was seen; each says where it comes from. They are the
// world's, never the rules': no figure here was moved to make an alert come earlier or go away.
import { rng } from './healthModel.js';
import { CODE_DIRS, ENVS, type Env } from './stackFrames.js';
import { type Point, type Program, stackText, trainingFrames } from './stackPrograms.js';

const SEC = 1000;
const MIN = 60 * SEC;
export const T0 = Date.UTC(2026, 10, 23, 0, 0, 0);

/** The faults the bench injects (issue 30, item 3). */
export const FAULTS = ['collective', 'data_loader', 'lock', 'frozen', 'dead'] as const;
export type FaultKind = (typeof FAULTS)[number];
/** How the job's own watchdog ends a hang: none, NCCL's std::abort (no `_error`), gloo / pg timeout (`_error`). */
export type Watchdog = 'none' | 'nccl' | 'gloo';

export interface Fault {
  readonly kind: FaultKind;
  /** When the process blocks (or stops), ms. */
  readonly at: number;
  /** The node to blame; undefined when no node can be (a rank outside the writers stopped). */
  readonly culprit: number | undefined;
  /** `collective`: the culprit waits in another collective (desync), or every writer waits (outside). */
  readonly variant: 'desync' | 'outside' | 'node';
  readonly watchdog: Watchdog;
}

/** A stretch of the training thread that is not stepping: a healthy pause, or the fault. */
export interface Pause {
  readonly kind: 'eval' | 'ckpt' | 'gil';
  readonly from: number;
  readonly to: number;
  /** `phase` set in metadata.json while it lasts (eval: `evaluation`, ckpt: `checkpointing`). */
  readonly phase: boolean;
  /** gil: the node whose process holds it (its writer thread cannot run). */
  readonly node: number;
}

export interface Shape {
  readonly seed: number;
  readonly nodes: number;
  /** Median seconds per step. */
  readonly tau: number;
  readonly sigma: number;
  /** Steps per progress() call. */
  readonly every: number;
  /** Writer interval (s) and progress.json's least interval (s). */
  readonly interval: number;
  readonly progressInterval: number;
  readonly start: number;
  /** Client start to the first progress() call (data, compile). */
  readonly setupMs: number;
  readonly samples: boolean;
  readonly backend: 'nccl' | 'gloo';
  readonly pauses: readonly Pause[];
  readonly fault?: Fault;
  /** Where the simulation stops. */
  readonly end: number;
  /** The share of S3 attempts that fail (a flaky stretch raises it). */
  readonly failP: number;
  readonly flaky?: { readonly from: number; readonly to: number };
}

type R = () => number;
const between = (r: R, a: number, b: number) => a + r() * (b - a);
const logUniform = (r: R, a: number, b: number) => Math.exp(between(r, Math.log(a), Math.log(b)));
/** Standard normal (Box–Muller). */
const normal = (r: R) => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());

/** Node counts of the fleet: the issue's 1, 2, 4, 8, 16, single-node runs the most common. */
const NODE_COUNTS = [1, 1, 2, 4, 8, 16] as const;

/**
 * One run's shape. `fault`: the kind to inject (undefined: a healthy run, simulated for `hours`); the fault
 * runs are simulated until 45 minutes after the fault.
 */
export function shapeOf(seed: number, fault: FaultKind | undefined, hours: number): Shape {
  const r = rng(seed);
  const nodes = NODE_COUNTS[Math.floor(r() * NODE_COUNTS.length)]!;
  // Step times 0.2 s – 2 min, log-uniform (the issue's range: a small model's step to a large model's
  // with gradient accumulation).
  const tau = logUniform(r, 0.2, 120);
  // Step-time jitter, lognormal σ 0.1–0.5 (the brief's range: data-dependent sequence lengths, MoE routing).
  const sigma = between(r, 0.1, 0.5);
  // progress() every step, or every 10 steps for a fast loop that logs every 10 (a common `log_every`).
  const every = tau < 2 && r() < 0.3 ? 10 : 1;
  // The client's interval: default 60 s, some runs 30 s or 120 s (the brief); progress_interval min(10, interval).
  const interval = r() < 0.7 ? 60 : r() < 0.5 ? 30 : 120;
  const progressInterval = Math.min(10, interval);
  const start = T0 + r() * MIN;
  // Time to the first progress() call: 30 s – 2 min of loading; in 30 % of runs a compile of 2–15 min
  // (torch.compile / XLA on a large model: the brief's range, as users report them in PyTorch's issues).
  const setupMs = (r() < 0.3 ? between(r, 2, 15) : between(r, 0.5, 2)) * MIN;
  const samples = r() < 0.5;
  // NCCL on GPUs mostly; gloo for CPU-side groups and the recorded CPU runs (issue 30).
  const backend = r() < 0.75 ? 'nccl' : 'gloo';
  const first = start + setupMs;

  // The fault: ≥ 20 min after training began (the brief), uniformly up to 90 min.
  let faultAt = fault ? first + between(r, 20, 90) * MIN : Number.POSITIVE_INFINITY;
  // Pauses are drawn past any place the fault may move to (below); a fault run ends 45 min after its fault.
  const horizon = fault ? faultAt + 6 * 60 * MIN : start + hours * 60 * MIN;

  // Healthy pauses (in every run: a fault run has them before its fault too).
  const pauses: Pause[] = [];
  // Evaluations: half the runs, every 1–3 h, 5–40 min each (the brief's range: a validation pass over a
  // held-out set, or generation-based evals); `phase: evaluation` set in half of those runs.
  if (r() < 0.5) {
    const every = between(r, 60, 180) * MIN;
    const phase = r() < 0.5;
    for (let t = first + every * between(r, 0.3, 1); t < horizon; t += every)
      pauses.push({ kind: 'eval', from: t, to: t + between(r, 5, 40) * MIN, phase, node: 0 });
  }
  // Checkpoints: 70 % of runs, 1–20 min each (100 GB – 1 TB of state at 1–2 GB/s to FSx or S3), every
  // 30–120 min and never more often than 3 × their length; `phase: checkpointing` in half of those runs.
  if (r() < 0.7) {
    const dur = logUniform(r, 1, 20) * MIN;
    const every = Math.max(3 * dur, between(r, 30, 120) * MIN);
    const phase = r() < 0.5;
    for (let t = first + every * between(r, 0.3, 1); t < horizon; t += every)
      pauses.push({ kind: 'ckpt', from: t, to: t + dur * between(r, 0.8, 1.2), phase, node: 0 });
  }
  // A writer paused by the GIL for 10–60 s (tokenizing a shard, pickling a large object, a C call that
  // keeps the GIL: issue 30's torch.save), in 30 % of runs, about once every 2 h.
  if (r() < 0.3)
    for (let t = first + between(r, 10, 120) * MIN; t < horizon; t += between(r, 60, 180) * MIN)
      pauses.push({
        kind: 'gil',
        from: t,
        to: t + between(r, 10, 60) * SEC,
        phase: false,
        node: Math.floor(r() * nodes),
      });
  pauses.sort((a, b) => a.from - b.from);
  // Pauses never overlap: a later one starts after the one before it.
  for (let i = 1; i < pauses.length; i++) {
    const p = pauses[i - 1]!;
    const q = pauses[i]!;
    if (q.from < p.to + MIN) {
      const len = q.to - q.from;
      pauses[i] = { ...q, from: p.to + MIN, to: p.to + MIN + len };
    }
  }
  // The fault lands in training, not inside a pause: moved to a minute after the pause it fell in.
  for (const p of pauses) if (faultAt >= p.from - MIN && faultAt < p.to + MIN) faultAt = p.to + MIN;
  const kept = fault ? pauses.filter((p) => p.from < faultAt) : pauses;
  const end = fault ? faultAt + 45 * MIN : horizon;

  let f: Fault | undefined;
  if (fault) {
    const variant: Fault['variant'] =
      fault === 'collective' ? (nodes > 1 && r() < 0.7 ? 'desync' : 'outside') : 'node';
    // The culprit: any node (a frozen or dead node 0 takes the run's own heartbeats with it).
    const culprit = variant === 'outside' ? undefined : Math.floor(r() * nodes);
    // The job's watchdog: half the runs have none (a single process, a timeout raised to hours); of the
    // rest, NCCL's default abort 3 times in 4 (torch's default for GPU jobs), gloo's pg timeout once.
    const watchdog: Watchdog = r() < 0.5 ? 'none' : r() < 0.75 ? 'nccl' : 'gloo';
    f = { kind: fault, at: faultAt, culprit, variant, watchdog };
  }
  // S3 PUTs fail 1 % of attempts (S3's 503 SlowDown / 500s and connection resets, retried by the client);
  // 10 % of runs see a flaky stretch of 10 min where 30 % fail (a congested NAT gateway).
  const failP = 0.01;
  const flakyAt = first + between(r, 0, 120) * MIN;
  const flaky = r() < 0.1 ? { from: flakyAt, to: flakyAt + 10 * MIN } : undefined;
  return {
    seed,
    nodes,
    tau,
    sigma,
    every,
    interval,
    progressInterval,
    start,
    setupMs,
    samples,
    backend,
    pauses: kept,
    end,
    failP,
    ...(flaky ? { flaky } : {}),
    ...(f ? { fault: f } : {}),
  };
}

/** One landed write of one key: visible from `at`, its LastModified `lastModified`; `body` undefined: a DELETE. */
export interface Landed {
  readonly at: number;
  readonly lastModified: number;
  readonly body: (() => string) | undefined;
}

/** What the client wrote of the run: every key's landed writes in time order. */
export interface Simulated {
  readonly shape: Shape;
  readonly calls: Float64Array;
  readonly keys: ReadonlyMap<string, readonly Landed[]>;
  /** When the job's watchdog killed every process (undefined: it never did). */
  readonly killedAt?: number;
}

// --- the training thread ------------------------------------------------------------------------------

/** The training thread's progress() call times (shared by every node: synchronous steps align them). */
function callTimes(s: Shape, r: R): Float64Array {
  const stop = s.fault ? s.fault.at : s.end;
  const out: number[] = [];
  let t = s.start + s.setupMs;
  let p = 0;
  const mu = Math.log(s.tau);
  while (t < stop) {
    out.push(t);
    let dt = 0;
    for (let k = 0; k < s.every; k++) {
      let step = Math.exp(mu + s.sigma * normal(r)) * SEC;
      // An occasional slow step: 0.5 % of steps take 3–10× (garbage collection, a new data shard, a
      // straggling host; the health simulation's 2 %-of-ticks slow steps, per step here).
      if (r() < 0.005) step *= between(r, 3, 10);
      dt += step;
    }
    t += dt;
    // A pause that began during this step ends before the next call.
    while (p < s.pauses.length && s.pauses[p]!.from <= t) {
      const q = s.pauses[p]!;
      t = Math.max(t, q.to) + (q.kind === 'gil' ? 0 : r() * s.tau * SEC);
      p++;
    }
  }
  return Float64Array.from(out);
}

/** Index of the last call at or before `t` (-1: none). */
function lastCall(calls: Float64Array, t: number): number {
  let lo = 0;
  let hi = calls.length - 1;
  if (hi < 0 || calls[0]! > t) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (calls[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const WARMUP_CALLS = 5;
const CADENCE_GAPS = 512;
const CADENCE_MIN = 10;
const PACE = 64;
const STACK_AFTER_S = 60;
const PACE_FACTOR = 3;
/** The client caps the pace's push at 5 minutes (PACE_CAP in clients/python/src/trainwatch/_stacks.py). */
const PACE_CAP_S = 300;
const REWRITE_MS = 5 * MIN;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The client's cadence after call `i` (clients/python/src/trainwatch/_node.py `cadence`), in seconds. */
function cadenceAt(calls: Float64Array, i: number, memo: Map<number, Cadence | null>): Cadence | undefined {
  const hit = memo.get(i);
  if (hit !== undefined) return hit ?? undefined;
  const from = Math.max(WARMUP_CALLS - 1, i - CADENCE_GAPS);
  let c: Cadence | null = null;
  if (i - from >= CADENCE_MIN) {
    const gaps = new Float64Array(i - from);
    for (let j = from + 1; j <= i; j++) gaps[j - from - 1] = (calls[j]! - calls[j - 1]!) / SEC;
    gaps.sort();
    const h = gaps.length >> 1;
    const med = gaps.length % 2 ? gaps[h]! : (gaps[h - 1]! + gaps[h]!) / 2;
    c = { median: med, p99: gaps[Math.ceil(0.99 * gaps.length) - 1]!, gaps: gaps.length };
  }
  memo.set(i, c);
  return c ?? undefined;
}
interface Cadence {
  readonly median: number;
  readonly p99: number;
  readonly gaps: number;
}

/** The usual gap before a cadence is known: the median of the last 64 gaps (s); undefined under 2 calls. */
function usualGap(calls: Float64Array, i: number): number | undefined {
  if (i < 1) return undefined;
  const gaps: number[] = [];
  for (let j = Math.max(1, i - PACE + 1); j <= i; j++) gaps.push((calls[j]! - calls[j - 1]!) / SEC);
  return median(gaps);
}

/** The client's stack_after in force after call `i` (-1: before any call), in ms. */
function stackAfterMs(calls: Float64Array, i: number, memo: Map<number, Cadence | null>): number {
  const c = i >= 0 ? cadenceAt(calls, i, memo) : undefined;
  const gap = c ? c.p99 : i >= 0 ? usualGap(calls, i) : undefined;
  return (gap ? Math.max(STACK_AFTER_S, Math.min(PACE_FACTOR * gap, PACE_CAP_S)) : STACK_AFTER_S) * SEC;
}

// --- where each node's training thread is --------------------------------------------------------------

/** Where node `rank`'s training thread is at `t` while it makes no call: frames, and whether it moves. */
interface Where {
  readonly point: Point;
  readonly moving: boolean;
  /** Its GPUs' utilisation (%). */
  readonly util: number;
}

function whereAt(s: Shape, rank: number, t: number, calls: Float64Array, v: number): Where {
  const f = s.fault;
  // A node waiting for a peer in NCCL spins a kernel (100 %); gloo waits on the CPU (0 %).
  const waitUtil = s.backend === 'nccl' ? 100 : 1;
  if (f && t >= f.at) {
    const culprit = rank === f.culprit;
    if (f.variant === 'outside')
      return { point: { at: 'peer', stage: 'same' }, moving: false, util: waitUtil };
    if (culprit && f.kind === 'collective') return { point: { at: 'saved' }, moving: false, util: waitUtil };
    if (culprit && f.kind === 'data_loader') return { point: { at: 'batch' }, moving: false, util: 0 };
    if (culprit && f.kind === 'lock') return { point: { at: 'lock', v }, moving: false, util: 0 };
    return { point: { at: 'peer', stage: 'same' }, moving: false, util: waitUtil };
  }
  if (calls.length === 0 || t < calls[0]!)
    // Before the first call: loading and compiling, code running on the CPU.
    return {
      point: { at: 'slow', backward: false, depth: Math.floor(v * 5), mlp: v < 0.5 },
      moving: true,
      util: 3,
    };
  const p = s.pauses.find((q) => t >= q.from && t < q.to);
  if (p?.kind === 'eval') {
    // A running evaluation: the model, sometimes the loader or a CUDA sync; its stack changes.
    return {
      point: { at: 'eval', v, depth: Math.floor(v * 5), mlp: v < 0.5 },
      moving: true,
      util: 40 + v * 50,
    };
  }
  if (p?.kind === 'ckpt') {
    // Rank 0 writes the checkpoint (blocked in write(): a stack that does not change); the others wait.
    if (rank === 0) return { point: { at: 'save', sub: 'write' }, moving: false, util: 2 };
    return { point: { at: 'saved' }, moving: false, util: waitUtil };
  }
  // A long step (a slow step, or the GIL held): running code.
  return {
    point: { at: 'slow', backward: v < 0.35, depth: Math.floor(v * 5), mlp: v < 0.5 },
    moving: true,
    util: 95,
  };
}

/** The job's program, for the stack frames: a training loop of the common layouts. */
function programOf(r: R, nodes: number): Program {
  const framework = r() < 0.6 ? 'loop' : r() < 0.6 ? 'hf' : 'lightning';
  const layout =
    framework === 'loop' ? (r() < 0.5 ? 'explicit' : 'fsdp') : framework === 'hf' ? 'fsdp' : 'fsdp';
  return {
    framework,
    layout: nodes === 1 && framework === 'loop' && r() < 0.5 ? 'explicit' : layout,
    loading: r() < 0.5 ? 'pinned' : 'workers',
    ddpWait: 'item',
    save: layout === 'fsdp' ? 'dcp' : 'torch',
    everyRankSaves: false,
    barrier: framework === 'loop' ? 'after' : 'inside',
    fsdpBlock: r() < 0.5,
    stages: 1,
  };
}

// --- the writers ----------------------------------------------------------------------------------------

interface Issue {
  readonly t: number;
  readonly key: string;
  /** The body, made when the write starts (the client builds it at write time); undefined: DELETE. */
  readonly body: ((at: number) => () => string) | undefined;
}

/** GIL windows of one process: its writer thread does nothing inside them. */
function blocked(s: Shape, rank: number): readonly Pause[] {
  return s.pauses.filter((p) => p.kind === 'gil' && p.node === rank);
}
const outside = (ws: readonly Pause[], t: number) => {
  for (const w of ws) if (t >= w.from && t < w.to) return w.to;
  return t;
};

/**
 * The client's writer thread of one process: one write at a time, the latest body of a key replacing a
 * queued one, a failed attempt retried after the client's backoff (base min(1, interval) s, doubling,
 * ±20 %, at most min(60, 5 × interval) s), nothing done while the GIL is held elsewhere, nothing after
 * `death`. S3's delay per attempt: 100 ms – 2 s, log-uniform (PUT latency of small objects from EC2:
 * ~100 ms typical, seconds in the tail).
 */
function write(
  s: Shape,
  r: R,
  issues: Issue[],
  gil: readonly Pause[],
  death: number,
  out: Map<string, Landed[]>,
): void {
  issues.sort((a, b) => a.t - b.t);
  const base = Math.min(1, s.interval) * SEC;
  const cap = Math.min(60, Math.max(1, 5 * s.interval)) * SEC;
  const queue = new Map<string, Issue>();
  let free = s.start;
  let i = 0;
  for (;;) {
    if (queue.size === 0) {
      if (i >= issues.length) break;
      free = Math.max(free, issues[i]!.t);
    }
    while (i < issues.length && issues[i]!.t <= free) {
      const x = issues[i++]!;
      queue.set(x.key, x);
    }
    if (queue.size === 0) continue;
    const [key, first] = queue.entries().next().value as [string, Issue];
    queue.delete(key);
    let job = first;
    let t = outside(gil, free);
    let failures = 0;
    for (;;) {
      if (t >= death) return;
      const d = logUniform(r, 100, 2000);
      const p = s.flaky && t >= s.flaky.from && t < s.flaky.to ? 0.3 : s.failP;
      if (r() >= p) {
        const landed = outside(gil, t + d);
        if (landed >= death) return;
        const list = out.get(key) ?? [];
        list.push({ at: landed, lastModified: t + Math.min(d, 50), body: job.body?.(t) });
        out.set(key, list);
        free = landed;
        break;
      }
      failures++;
      t = outside(gil, t + d + Math.min(cap, base * 2 ** (failures - 1)) * between(r, 0.8, 1.2));
      // A newer body of the same key queued meanwhile is the one retried (latest wins).
      while (i < issues.length && issues[i]!.t <= t) {
        const x = issues[i++]!;
        if (x.key === key) job = x;
        else queue.set(x.key, x);
      }
    }
  }
}

const iso = (t: number) => new Date(t).toISOString();
const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

/** Simulates the run: its calls, then every write of every process, landed. */
export function simulate(s: Shape): Simulated {
  const r = rng(s.seed ^ 0x5bd1e995);
  const calls = callTimes(s, r);
  const f = s.fault;
  const n = s.nodes;
  const runId = `detect-${s.seed}`;
  const memo = new Map<number, Cadence | null>();
  const program = programOf(r, n);
  const env: Env = {
    ...ENVS[Math.floor(r() * ENVS.length)]!,
    code: CODE_DIRS[Math.floor(r() * CODE_DIRS.length)]!,
  };
  const batch = 8 * (1 + Math.floor(r() * 64)); // samples per step per node
  // The job's watchdog ends every process 10 min after the hang (NCCL's default timeout, issue 30).
  const killedAt = f && f.watchdog !== 'none' ? f.at + 10 * MIN : undefined;
  const deathOf = (rank: number) => {
    if (f && (f.kind === 'frozen' || f.kind === 'dead') && rank === f.culprit) return f.at;
    return killedAt ?? Number.POSITIVE_INFINITY;
  };
  const out = new Map<string, Landed[]>();
  const phaseAt = (t: number) => {
    if (calls.length === 0 || t < calls[0]!) return 'setup';
    const p = s.pauses.find((q) => q.phase && t >= q.from && t < q.to);
    return p ? (p.kind === 'eval' ? 'evaluation' : 'checkpointing') : 'training';
  };
  const stepOf = (i: number) => (i + 1) * s.every;

  for (let rank = 0; rank < n; rank++) {
    const issues: Issue[] = [];
    const started = s.start + r() * 20 * SEC; // torchrun starts the nodes' clients within seconds
    const death = deathOf(rank);
    const gil = blocked(s, rank);
    const stop = Math.min(death, s.end);
    const pollAt = (t: number) => outside(gil, t);
    // Rank 0 writes the run's files.
    if (rank === 0) {
      const meta = (status: string) => (at: number) => () =>
        JSON.stringify({
          run_id: runId,
          status,
          phase: phaseAt(at),
          last_update: iso(at),
          started_at: iso(started),
          attempt: 1,
          instance_id: `i-0${(s.seed * 131).toString(16).padStart(16, '0')}`,
          job_name: `job-${s.seed % 40}`,
          ...(n > 1 ? { nodes: n } : {}),
        });
      // Every interval, and at once at the first call and at each phase change (run.phase() beats).
      const extra = [
        ...(calls.length ? [calls[0]!] : []),
        ...s.pauses.filter((p) => p.phase).flatMap((p) => [p.from, p.to]),
      ].sort((a, b) => a - b);
      let next = started;
      let e = 0;
      while (next < stop || (e < extra.length && extra[e]! < stop)) {
        const t = e < extra.length && extra[e]! < next ? extra[e++]! : next;
        if (t >= stop) break;
        const at = pollAt(t);
        issues.push({
          t: at,
          key: 'metadata.json',
          body: meta(calls.length && at >= calls[0]! ? 'running' : 'starting'),
        });
        next = at + s.interval * SEC;
      }
      // progress.json: at a call when the least interval passed, else a trailing write when it does.
      const prog = (i: number) => () => () =>
        JSON.stringify({
          step: stepOf(i),
          total_steps: 1_000_000,
          loss: round(2.5 / Math.log(10 + stepOf(i)), 4),
          learning_rate: 0.0003,
          last_updated: iso(calls[i]!),
        });
      const pi = s.progressInterval * SEC;
      let npa = 0;
      let pending = -1;
      for (let i = 0; i < calls.length; i++) {
        const c = calls[i]!;
        if (c >= stop) break;
        if (pending >= 0 && npa <= c) {
          const at = pollAt(npa);
          issues.push({ t: at, key: 'progress.json', body: prog(lastCall(calls, at)) });
          npa = at + pi;
          pending = -1;
        }
        if (c >= npa) {
          issues.push({ t: c, key: 'progress.json', body: prog(i) });
          npa = c + pi;
        } else pending = i;
      }
      if (pending >= 0 && npa < stop)
        issues.push({ t: pollAt(npa), key: 'progress.json', body: prog(pending) });
      // The job's watchdog: gloo's timeout raises in rank 0, whose client writes `_error` (NCCL aborts: none).
      if (f && killedAt !== undefined && f.watchdog === 'gloo' && death === killedAt && killedAt < s.end) {
        const text = () => () =>
          `Traceback (most recent call last):\n  File "${env.code}/train.py", line 88, in train_step\n    dist.all_reduce(loss)\nRuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 600000ms for recv operation to complete`;
        issues.push({ t: killedAt - 1, key: '_error', body: text });
        issues.push({ t: killedAt - 1, key: 'metadata.json', body: meta('failed') });
      }
    }

    // nodes/{rank}.json every interval from the client's start.
    const instance = `i-0${((s.seed * 131 + rank + 1) >>> 0).toString(16).padStart(16, '0')}`;
    let previous = -1; // the last call the previous node file covered
    let idleSince: number | undefined;
    for (let t = started; t < stop; ) {
      const at = pollAt(t);
      const from = previous;
      const i = lastCall(calls, at);
      previous = i;
      // GPU idle since (the client's idle_s counts from its first sample at ≤ 5 %).
      const util = utilAt(s, rank, at, calls, r);
      idleSince = util <= 5 ? (idleSince ?? at) : undefined;
      const idleS = idleSince !== undefined ? (at - idleSince) / SEC : undefined;
      issues.push({
        t: at,
        key: `nodes/${rank}.json`,
        body: () => () => nodeBody(s, calls, memo, rank, instance, at, i, from, util, idleS, batch),
      });
      t = at + s.interval * SEC;
    }

    // stacks/{rank}.json: once no call came for stack_after, rewritten every 5 min, deleted at the next call.
    const v = r();
    const silences: [number, number, number][] = [[started, calls.length ? calls[0]! : s.end, -1]];
    for (let i = 0; i + 1 < calls.length; i++)
      if (calls[i + 1]! - calls[i]! > STACK_AFTER_S * SEC) silences.push([calls[i]!, calls[i + 1]!, i]);
    if (calls.length) silences.push([calls[calls.length - 1]!, Number.POSITIVE_INFINITY, calls.length - 1]);
    for (const [a, b, i] of silences) {
      const after = stackAfterMs(calls, i, memo);
      if (b - a <= after) continue;
      let wrote = false;
      for (let t = a + after; t < b && t < stop; t += REWRITE_MS) {
        const at = pollAt(t);
        if (at >= b) break;
        const w = whereAt(s, rank, at, calls, v);
        const step = i >= 0 ? stepOf(i) : null;
        issues.push({
          t: at,
          key: `stacks/${rank}.json`,
          body: () => () => {
            const text = stackText(
              rank,
              env,
              trainingFrames(program, w.point),
              ['writer'],
              step ?? 0,
              at,
              (at - a) / SEC,
            );
            const head = step === null ? text.replace(/"step":0,/, '"step":null,') : text;
            return head.replace(',"threads":', `,"moving":${w.moving},"threads":`);
          },
        });
        wrote = true;
      }
      if (wrote && b < stop) issues.push({ t: b, key: `stacks/${rank}.json`, body: undefined });
    }
    write(s, r, issues, gil, death, out);
  }
  return { shape: s, calls, keys: out, ...(killedAt !== undefined ? { killedAt } : {}) };
}

/** A node's GPU utilisation at `t` (%), with a little noise: training, or where its thread waits. */
function utilAt(s: Shape, rank: number, t: number, calls: Float64Array, r: R): number {
  const f = s.fault;
  const paused = s.pauses.some((p) => p.kind !== 'gil' && t >= p.from && t < p.to);
  const setup = calls.length === 0 || t < calls[0]!;
  if (!setup && !paused && (!f || t < f.at)) return 85 + r() * 15;
  return Math.min(100, Math.max(0, whereAt(s, rank, t, calls, r()).util + (r() - 0.5) * 4));
}

function nodeBody(
  s: Shape,
  calls: Float64Array,
  memo: Map<number, Cadence | null>,
  rank: number,
  instance: string,
  at: number,
  i: number,
  from: number,
  util: number,
  idleS: number | undefined,
  batch: number,
): string {
  const timing: Record<string, number> = {};
  if (i >= 0) {
    const per = s.every;
    if (i > from && i >= 1) {
      const gaps: number[] = [];
      for (let j = Math.max(1, from + 1); j <= i; j++) gaps.push((calls[j]! - calls[j - 1]!) / SEC / per);
      timing.step_time_s = round(median(gaps), 4);
      if (s.samples) {
        const since = from >= 0 ? from : 0;
        const dt = (calls[i]! - calls[since]!) / SEC;
        if (dt > 0) timing.samples_per_s = round(((i - since) * per * batch) / dt, 2);
      }
    } else {
      const usual = usualGap(calls, i) ?? Number.POSITIVE_INFINITY;
      const since = (at - calls[i]!) / SEC;
      if (since > usual) {
        timing.step_time_s = round(since / per, 4);
        if (s.samples) timing.samples_per_s = 0;
      } else if (i >= 1) timing.step_time_s = round(usual / per, 4);
    }
  }
  const c = i >= 0 ? cadenceAt(calls, i, memo) : undefined;
  const gpus = Array.from({ length: 8 }, (_, index) => ({
    index,
    util: Math.round(util),
    ...(idleS !== undefined ? { idle_s: round(idleS, 1) } : {}),
  }));
  return JSON.stringify({
    node_rank: rank,
    nodes: s.nodes,
    instance_id: instance,
    hostname: `ip-10-0-${rank >> 8}-${rank & 255}`,
    ...(i >= 0 ? { step: (i + 1) * s.every } : {}),
    ...timing,
    gpus,
    every_s: s.interval,
    ...(c ? { call_gap_s: round(c.median, 4), call_gap_p99_s: round(c.p99, 4), calls: c.gaps } : {}),
    stack_after_s: round(stackAfterMs(calls, i, memo) / SEC, 3),
    last_updated: iso(at),
  });
}
