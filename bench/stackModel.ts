// A simulated stuck multi-node run for the stack simulation (bench/stackSim.ts): the job it runs
// (bench/stackPrograms.ts), where each node's training thread is, when each node wrote its node file and
// its stack file, and when the sweep that finds the run STALLED looks. Pure and seeded. The noise comes
// from this model (installs, frameworks, threads, capture moments, thresholds, leftovers of earlier
// pauses), not from picking cases the analyzer is known to handle.
import type { RunFiles } from '../lambdas/core/model/listing.js';
import type { NodeObject } from '../lambdas/core/model/slices/nodes.js';
import { rng } from './healthModel.js';
import { type BYSTANDERS, CODE_DIRS, ENVS, type Env } from './stackFrames.js';
import { type Point, type Program, stackText, trainingFrames } from './stackPrograms.js';

export const CULPRITS = ['data_loader', 'lock', 'checkpoint_io', 'cuda', 'frozen', 'slow'] as const;
export type Culprit = (typeof CULPRITS)[number];
/** Stalled runs no node is to blame for: every node in one long checkpoint, in one collective, or none stuck. */
export const HEALTHY = ['checkpoint', 'collective', 'stale'] as const;
/** `evaluation`: a long evaluation in the training thread without `phase` set (outside the set). */
export type Healthy = (typeof HEALTHY)[number] | 'evaluation';
/**
 * Where a node that waits for a peer shows it: blocked in the collective (gloo, NCCL with blocking wait,
 * FSDP/DeepSpeed/pipeline calls made from Python), or at its next host sync (DDP's gradient all_reduce runs
 * inside backward; with NCCL's default the collective is queued on the GPU and the CPU blocks later).
 */
export type Peers = 'collective' | 'sync';
export type Case = { readonly culprit: Culprit } | { readonly healthy: Healthy };

const SEC = 1000;
const MIN = 60 * SEC;
const T0 = Date.UTC(2026, 10, 23, 0, 0, 0);
/** The client rewrites a stuck node's stack file this often. */
const REWRITE_MS = 5 * MIN;

type R = () => number;
function pick<T>(r: R, options: readonly (readonly [T, number])[]): T {
  const live = options.filter(([, w]) => w > 0);
  let x = r() * live.reduce((s, [, w]) => s + w, 0);
  for (const [v, w] of live) {
    x -= w;
    if (x < 0) return v;
  }
  return live.at(-1)![0];
}
/** One of the keys of `weights`, drawn by weight (a zero weight never). */
const choose = <K extends string>(r: R, weights: Readonly<Record<K, number>>): K =>
  pick(r, Object.entries(weights) as [K, number][]);
const between = (r: R, a: number, b: number) => a + r() * (b - a);

/** What shaped a trial: read by the failure breakdown, never by the scoring. */
export interface Notes {
  readonly program: Program;
  readonly stallMin: number;
  readonly stackAfterS: number;
  readonly gapS: number;
  /** Stuck nodes whose stack was not written yet when the sweep looked. */
  readonly missing: number;
  /** Stack files left from an earlier pause that no new one replaced. */
  readonly stale: number;
  /** Where in a save each node was, when some were elsewhere than writing. */
  readonly subs: string;
}

/** What the run's folder held when the sweep looked, and the node to blame (none for a healthy run). */
export interface Trial {
  readonly run: RunFiles;
  readonly nodeBodies: ReadonlyMap<number, Uint8Array>;
  readonly stackBodies: ReadonlyMap<number, Uint8Array>;
  readonly step: number;
  readonly stepAdvancedAt: number;
  readonly now: number;
  readonly culprit?: number;
  readonly notes: Notes;
}

function program(r: R, n: number, peers: Peers, everyRankSaves?: boolean): Program {
  const framework = choose(r, { loop: 0.55, hf: 0.25, lightning: 0.2 });
  const layout =
    peers === 'sync'
      ? 'ddp'
      : framework === 'loop'
        ? choose(r, { explicit: 0.45, fsdp: 0.3, deepspeed: 0.15, pipeline: n >= 16 ? 0.1 : 0 })
        : framework === 'hf'
          ? choose(r, { fsdp: 0.5, deepspeed: 0.5 })
          : 'fsdp';
  const loop = framework === 'loop';
  const save =
    layout === 'fsdp'
      ? 'dcp'
      : layout === 'deepspeed'
        ? 'deepspeed'
        : framework === 'hf'
          ? 'safetensors'
          : framework === 'lightning'
            ? 'torch'
            : choose(r, { torch: 0.7, safetensors: 0.3 });
  const sharded = save === 'dcp' || save === 'deepspeed';
  return {
    framework,
    layout,
    loading: choose(r, { pinned: 0.4, workers: 0.25, inline: 0.15, streaming: 0.1, custom: loop ? 0.1 : 0 }),
    ddpWait: choose(r, { backward: 0.4, item: 0.4, synchronize: loop ? 0.2 : 0 }),
    save,
    everyRankSaves: everyRankSaves ?? (sharded || r() < (layout === 'ddp' ? 0.2 : 0.6)),
    barrier: loop && !sharded ? choose(r, { inside: 0.35, after: 0.45, none: 0.2 }) : 'inside',
    fsdpBlock: r() < 0.5,
    stages: layout === 'pipeline' ? (n >= 64 && r() < 0.5 ? 8 : 4) : 1,
  };
}

/** Where in a save a node is: mostly writing storages; closing the archive or the job's fsync now and then. */
function saveSub(r: R, p: Program): 'write' | 'close' | 'fsync' {
  const own = p.framework === 'loop' && (p.save === 'torch' || p.save === 'safetensors');
  return choose(r, { write: 0.95, close: p.save === 'torch' ? 0.03 : 0, fsync: own ? 0.02 : 0 });
}

const utf8 = new TextEncoder();
const encode = (x: unknown) => utf8.encode(typeof x === 'string' ? x : JSON.stringify(x));

/**
 * One stalled run of `n` nodes. `seed` draws everything; `c` says who is stuck where; `peers` how the
 * nodes that wait for a peer show it.
 */
export function simulate(seed: number, c: Case, peers: Peers, n: number): Trial {
  const r = rng(seed);
  const healthy = 'healthy' in c ? c.healthy : undefined;
  const kind = 'culprit' in c ? c.culprit : undefined;
  const p = program(r, n, peers, healthy === 'checkpoint' ? true : undefined);
  // Timing: seconds per step, progress() every step or every few, the run's thresholds.
  const tau = Math.exp(between(r, Math.log(0.3), Math.log(20)));
  const stallMin = pick(r, [
    [30, 0.55],
    [15, 0.1],
    [10, 0.15],
    [5, 0.1],
    [3, 0.05],
    [2, 0.05],
  ] as const);
  // A job that reports every few steps keeps its reports well inside the stall threshold (or would stall).
  const every = pick(r, [
    [1, 0.8],
    [10, 0.15],
    [50, 0.05],
  ] as const);
  const gapS = tau * every > stallMin * 30 ? tau : tau * every;
  const stackAfterS = pick(r, [
    [120, 0.8],
    [60, 0.1],
    [300, 0.1],
  ] as const);
  const step = 1000 + Math.floor(r() * 200_000);
  const hang = T0 + 3 * 60 * MIN + r() * 60 * MIN;
  // Every node's last progress() ends the same step, within a second (the step's collectives align them).
  const last = Array.from({ length: n }, () => hang - r() * SEC);
  const progressAt = last[0]! + r() * 10 * SEC; // progress.json is written at most every 10 s
  const phase = r() * MIN;
  const now = T0 + phase + (Math.floor((progressAt + stallMin * MIN - T0 - phase) / MIN) + 1) * MIN;

  // Who is stuck where.
  const culprit =
    healthy !== undefined
      ? undefined
      : kind === 'frozen'
        ? 1 + Math.floor(r() * (n - 1)) // node 0 writes metadata.json: frozen, the run times out instead
        : kind === 'checkpoint_io' && !p.everyRankSaves
          ? 0
          : Math.floor(r() * n);
  const stageOf = (rank: number) => Math.floor((rank * p.stages) / n);
  const cut = Math.floor(r() * Math.max(1, p.stages - 1)); // healthy pipeline: the link that broke
  const peerAt = (rank: number): Point => {
    if (p.layout !== 'pipeline') return { at: 'peer', stage: 'same' };
    const s = stageOf(rank);
    if (culprit === undefined) return { at: 'peer', stage: s <= cut ? 'before' : 'after' };
    const k = stageOf(culprit);
    return { at: 'peer', stage: s < k ? 'before' : s > k ? 'after' : 'same' };
  };
  const subs: string[] = [];
  const pointOf = (rank: number): Point | undefined => {
    if (healthy === 'stale') return undefined; // progress() still called: nobody is stuck
    if (healthy === 'checkpoint') {
      const sub = saveSub(r, p);
      subs.push(sub);
      return { at: 'save', sub };
    }
    if (healthy === 'evaluation') return { at: 'eval', v: r(), depth: Math.floor(r() * 5), mlp: r() < 0.5 };
    if (healthy === 'collective' || rank !== culprit) {
      if (kind === 'checkpoint_io')
        return p.framework === 'loop' && p.barrier === 'none' ? peerAt(rank) : { at: 'saved' };
      return peerAt(rank);
    }
    switch (kind) {
      case 'data_loader':
        return { at: 'batch' };
      case 'lock':
      case 'cuda':
        return { at: kind, v: r() };
      case 'slow':
        return { at: 'slow', backward: r() < 0.35, depth: Math.floor(r() * 5), mlp: r() < 0.5 };
      case 'checkpoint_io':
        return { at: 'save', sub: saveSub(r, p) };
      default:
        return undefined; // frozen: writes nothing
    }
  };

  // Each node's install, threads, node file and stack file.
  const base = Math.floor(r() * ENVS.length);
  const code = Math.floor(r() * CODE_DIRS.length);
  const extras: (keyof typeof BYSTANDERS)[] = [
    ...(r() < 0.4 ? (['wandbRouter', 'wandbCheck'] as const) : []),
    ...(r() < 0.2 ? (['tensorboard'] as const) : []),
    ...(r() < 0.25 ? Array.from({ length: 2 + Math.floor(r() * 5) }, () => 'executor' as const) : []),
    ...(r() < 0.3 ? (['monitor'] as const) : []),
  ];
  const staleRanks = new Set<number>();
  const staleCount =
    healthy === 'stale'
      ? 1 + Math.floor(r() * Math.min(3, n))
      : r() < 0.15
        ? 1 + Math.floor(r() * Math.min(3, n))
        : 0;
  while (staleRanks.size < staleCount) staleRanks.add(Math.floor(r() * n));

  const nodes: NodeObject[] = [];
  const stacks: NodeObject[] = [];
  const nodeBodies = new Map<number, Uint8Array>();
  const stackBodies = new Map<number, Uint8Array>();
  let missing = 0;
  let stale = 0;
  for (let rank = 0; rank < n; rank++) {
    const env: Env = {
      ...ENVS[r() < 0.25 ? Math.floor(r() * ENVS.length) : base]!,
      code: CODE_DIRS[r() < 0.15 ? Math.floor(r() * CODE_DIRS.length) : code]!,
    };
    const frozen = kind === 'frozen' && rank === culprit;
    // The node file: every 60 s at the node's own offset, a few seconds early or late; a frozen node's stops.
    const offset = r() * MIN;
    const until = frozen ? last[rank]! : now;
    let k = Math.floor((until - T0 - offset) / MIN);
    let wrote = T0 + offset + k * MIN + between(r, -3, 3) * SEC;
    if (wrote > until) wrote = T0 + offset + --k * MIN + between(r, -3, 3) * SEC;
    const nodeStep = wrote >= last[rank]! || healthy === 'stale' ? step : step - 1;
    const body = encode({
      node_rank: rank,
      nodes: n,
      instance_id: `i-0${((seed * 131 + rank) >>> 0).toString(16).padStart(16, '0')}`,
      hostname: `ip-10-0-${rank >> 8}-${rank & 255}`,
      last_updated: new Date(wrote).toISOString(),
      step: nodeStep,
      step_time_s: tau,
      gpus: Array.from({ length: 8 }, (_, index) => ({ index, util: frozen ? 0 : 100 })),
    });
    nodes.push({ rank, lastModified: wrote, etag: `"n${rank}-${Math.round(wrote)}"`, size: body.length });
    nodeBodies.set(rank, body);

    const others: (keyof typeof BYSTANDERS)[] = [
      'writer',
      ...(p.loading === 'pinned' ? (['pin'] as const) : []),
      ...extras,
    ];
    const point = frozen ? undefined : pointOf(rank);
    let put: { at: number; body: Uint8Array } | undefined;
    if (point) {
      // Written once no progress() came for max(stack_after, 3 usual gaps), then every 5 minutes.
      // Each node measures its own usual gap; synchronous steps keep them within a few percent.
      const after = Math.max(stackAfterS, 3 * gapS * between(r, 0.98, 1.02)) * SEC;
      const first = last[rank]! + after + between(r, 0.05, 1.5) * SEC;
      if (first > now) missing++;
      else {
        const at = first + Math.floor((now - first) / REWRITE_MS) * REWRITE_MS;
        const file = stackText(
          rank,
          env,
          trainingFrames(p, point),
          others,
          step,
          at,
          (at - last[rank]!) / SEC,
        );
        put = { at, body: encode(file) };
      }
    }
    if (!put && staleRanks.has(rank)) {
      // Left by an earlier pause (a lost DELETE, or a worker restarted by torchrun): an older step.
      stale++;
      const earlier: Point = pick(r, [
        [{ at: 'save', sub: 'write' }, 1],
        [{ at: 'batch' }, 1],
        [peerAt(rank), 1],
      ] as const);
      const at = hang - between(r, 60, 180) * MIN;
      const oldStep = Math.max(0, step - Math.max(1, Math.round(gapS / tau)) * (20 + Math.floor(r() * 5000)));
      put = {
        at,
        body: encode(
          stackText(rank, env, trainingFrames(p, earlier), others, oldStep, at, between(r, 130, 900)),
        ),
      };
    }
    if (put) {
      stacks.push({
        rank,
        lastModified: put.at,
        etag: `"s${rank}-${Math.round(put.at)}"`,
        size: put.body.length,
      });
      stackBodies.set(rank, put.body);
    }
  }
  const info = (key: string, at: number) => ({
    key,
    lastModified: at,
    etag: `"${key}-${Math.round(at)}"`,
    size: 200,
  });
  return {
    run: {
      runId: `sim-${seed}`,
      files: {
        metadata: info('metadata.json', now - r() * 60 * SEC),
        progress: info('progress.json', progressAt),
      },
      firstSeenAt: T0,
      nodes,
      stacks,
    },
    nodeBodies,
    stackBodies,
    step,
    stepAdvancedAt: progressAt,
    now,
    culprit,
    notes: {
      program: p,
      stallMin,
      stackAfterS,
      gapS,
      missing,
      stale,
      subs: subs.filter((s) => s !== 'write').join(','),
    },
  };
}
