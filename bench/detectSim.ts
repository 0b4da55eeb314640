// How fast, and how right, the sweep tells a stuck run on its DEFAULT settings (issue 30, item 3). Each run of
// bench/detectModel.ts is checked by the real pipeline (`checkRun`, lambdas/core/pipeline/checkRun.ts) once
// per simulated minute, as the sweep does, over in-memory S3 (each write visible once it landed, LastModified
// and ETag as S3 sets them) and DynamoDB, with `loadConfig` of an empty environment (only the bucket and the
// table, which have no default): thresholds, health rules on. Every alert the run's notifier receives is
// scored. Seeds 1–150 are the TUNING set printed here, for looking at failures while changing the rules (1–650
// were tuned on); seeds 11001–11650 are HELD OUT, never looked at while tuning: the figures to quote. Pure (no clock, no network).

import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { loadConfig } from '../lambdas/config.js';
import { DEFAULT_HEALTH_SETTINGS } from '../lambdas/core/health/index.js';
import type { Alert } from '../lambdas/core/model/alert.js';
import { type ObjectInfo, type RunFiles, RunGrouper } from '../lambdas/core/model/listing.js';
import type { MovedFiles, Notifier, RunStore, StateStore } from '../lambdas/core/model/ports.js';
import type { Ended, Flip, OutboxEntry, RunRecord, Undelivered } from '../lambdas/core/model/record.js';
import { type CheckDeps, checkRun } from '../lambdas/core/pipeline/index.js';
import { RunFile, type RunFileName } from '../lambdas/core/protocol/files.js';
import {
  FAULTS,
  type FaultKind,
  type Landed,
  type Shape,
  type Simulated,
  shapeOf,
  simulate,
} from './detectModel.js';

const SEC = 1000;
const MIN = 60 * SEC;
export const TUNING: readonly [number, number] = [1, 150];
export const HELD_OUT: readonly [number, number] = [11001, 11650];
/** Hours of each healthy run. */
export const HEALTHY_HOURS = 8;
const PREFIX = 'training-runs';
const encoder = new TextEncoder();

/** The defaults a user gets: an environment with only what has no default. */
export function defaults() {
  const config = loadConfig({ TRAINWATCH_BUCKET: 'bench', TRAINWATCH_TABLE: 'bench' });
  return {
    thresholds: config.thresholds,
    health: { ...DEFAULT_HEALTH_SETTINGS, ...config.health },
    remindEveryMs: config.remindEveryMs,
  };
}

/** One run's S3 folder as the sweep sees it at `now`: each key's latest write that landed. */
class SimStore implements RunStore {
  private readonly cursor = new Map<string, number>();
  private readonly current = new Map<
    string,
    { info: ObjectInfo; body: Uint8Array | undefined; make: () => string }
  >();
  private etags = 0;
  constructor(
    readonly runId: string,
    private readonly keys: ReadonlyMap<string, readonly Landed[]>,
  ) {}

  /** Applies every write landed by `now`; true when anything changed. */
  advance(now: number): boolean {
    let changed = false;
    for (const [key, list] of this.keys) {
      let k = this.cursor.get(key) ?? 0;
      if (k >= list.length || list[k]!.at > now) continue;
      while (k + 1 < list.length && list[k + 1]!.at <= now) k++;
      const w = list[k]!;
      this.cursor.set(key, k + 1);
      changed = true;
      const full = `${PREFIX}/${this.runId}/${key}`;
      if (!w.body) this.current.delete(full);
      else
        this.current.set(full, {
          info: { key: full, lastModified: Math.floor(w.lastModified), etag: `"${++this.etags}"`, size: 400 },
          body: undefined,
          make: w.body,
        });
    }
    return changed;
  }

  private listing: RunFiles | undefined;
  list(changed: boolean): RunFiles | undefined {
    if (!changed && this.listing) return this.listing;
    const g = new RunGrouper(PREFIX);
    for (const o of this.current.values()) g.add(o.info);
    this.listing = g.result()[0];
    return this.listing;
  }

  private body(path: string): Uint8Array | undefined {
    const o = this.current.get(`${PREFIX}/${this.runId}/${path}`);
    if (!o) return undefined;
    o.body ??= encoder.encode(o.make());
    return o.body;
  }
  async listRuns() {
    const run = this.list(true);
    return { runs: run ? [run] : [], ignored: [] };
  }
  async listRun(): Promise<RunFiles | undefined> {
    return this.list(true);
  }
  async read(_runId: string, file: RunFileName, tailBytes?: number): Promise<Uint8Array | undefined> {
    const b = this.body(RunFile[file]);
    return b && tailBytes !== undefined && b.length > tailBytes ? b.subarray(b.length - tailBytes) : b;
  }
  async readNode(_runId: string, rank: number) {
    return this.body(`nodes/${rank}.json`);
  }
  async readStack(_runId: string, rank: number) {
    return this.body(`stacks/${rank}.json`);
  }
  async moveToEnded(): Promise<MovedFiles> {
    throw new Error('the bench checks runs; it never ends them');
  }
}

/**
 * One run's DynamoDB item, as test/support/fakes.ts's FakeStateStore keeps it (conditional on the version)
 * without its deep copies: the pipeline builds new records and never changes one it was given, and the
 * copies were a tenth of the bench's time.
 */
class SimStates implements StateStore {
  private r: RunRecord | undefined;
  async loadLive() {
    return new Map(this.r && !this.r.ended ? [[this.r.runId, this.r]] : []);
  }
  async find() {
    return new Map<string, RunRecord>();
  }
  async get() {
    return this.r;
  }
  async revive() {
    return false;
  }
  async end(_r: RunRecord, _e: Ended, _f: Flip) {
    return false;
  }
  private cas(next: RunRecord, expected: number): boolean {
    if ((this.r?.version ?? 0) !== expected) return false;
    this.r = { ...next, version: expected + 1 };
    return true;
  }
  async transition(next: RunRecord, _flip: Flip, expected: number) {
    return this.cas(next, expected);
  }
  async update(next: RunRecord, expected: number) {
    return this.cas(next, expected);
  }
  async settleOutbox(
    _runId: string,
    alertId: string,
    entry: OutboxEntry | null,
    gaveUp: readonly Undelivered[],
    at: number,
  ) {
    const r = this.r;
    if (!r?.outbox?.[alertId]) return;
    const outbox = { ...r.outbox };
    if (entry) outbox[alertId] = entry;
    else delete outbox[alertId];
    this.r = {
      ...r,
      version: r.version + 1,
      outbox,
      ...(gaveUp.length ? { undelivered: [...(r.undelivered ?? []), ...gaveUp], updatedAt: at } : {}),
    };
  }
  async acquireLock() {
    return false;
  }
  async releaseLock() {}
  async history() {
    return [];
  }
}

/** The alerts one run was sent. */
class Recorder implements Notifier {
  readonly channel = 'slack';
  readonly sent: Alert[] = [];
  async notify(a: Alert) {
    this.sent.push(a);
  }
}

/** What one run's alerts came to. */
export interface Trial {
  readonly shape: Shape;
  /** Every alert sent, in order: minutes from the run's start, state, reason. */
  readonly alerts: readonly { readonly at: number; readonly state: string; readonly reason: string }[];
  readonly sweeps: number;
}

const QUIET = new Set(['RUNNING', 'SUCCEEDED']);

/** Drives one simulated run through `checkRun`, a sweep a minute, from its first write to its end. */
export async function drive(sim: Simulated, d = defaults()): Promise<Trial> {
  const s = sim.shape;
  const runId = `detect-${s.seed}`;
  const store = new SimStore(runId, sim.keys);
  const states = new SimStates();
  const slack = new Recorder();
  const deps: CheckDeps = {
    runs: store,
    states,
    notifiers: [slack],
    thresholds: d.thresholds,
    classify: () => ({ error_type: null }),
    links: { bucket: 'bench', prefix: PREFIX, region: 'us-east-1' },
    remindEveryMs: d.remindEveryMs,
    deliverOptions: { attempts: 1, sleep: async () => {} },
    health: d.health,
  };
  // The sweep runs at the top of every minute (EventBridge), a second or two late.
  let sweeps = 0;
  for (let now = Math.ceil(s.start / MIN) * MIN + 1500; now <= s.end; now += MIN) {
    const changed = store.advance(now);
    const run = store.list(changed);
    if (!run) continue;
    sweeps++;
    await checkRun(deps, run, await states.get(), now);
  }
  return {
    shape: s,
    sweeps,
    alerts: slack.sent.map((a: Alert) => ({ at: a.at, state: a.state, reason: a.reason })),
  };
}

/** The seed of one trial: the kind mixed in, so healthy and fault runs never share draws. */
const seedOf = (kind: string, seed: number) => {
  let h = 0x811c9dc5;
  for (const ch of kind) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return (h ^ Math.imul(seed, 0x9e3779b1)) >>> 0;
};

/** The fault kind of fault-seed `seed`: the kinds in turn. */
export const faultOf = (seed: number): FaultKind => FAULTS[seed % FAULTS.length]!;
export const healthyShape = (seed: number) => shapeOf(seedOf('healthy', seed), undefined, HEALTHY_HOURS);
export const faultShape = (seed: number) => shapeOf(seedOf(faultOf(seed), seed), faultOf(seed), 0);

/** A fault trial scored. */
export interface Scored {
  /** The bench seed (healthyShape / faultShape). */
  readonly seed: number;
  readonly shape: Shape;
  /** Minutes from the fault to the first unhealthy alert (undefined: none within 45 min). */
  readonly minutes?: number;
  readonly state?: string;
  readonly reason?: string;
  /** The first unhealthy alert names the culprit (`node N`); undefined where there is none to name. */
  readonly named?: boolean;
  /** It names another node. */
  readonly wrong?: boolean;
  /** An alert before the fault (a false alarm in a fault run). */
  readonly early?: string;
}

const nodeRe = /\bnode (\d+)\b/g;
export function score(t: Trial, seed: number): Scored {
  const f = t.shape.fault!;
  const bad = t.alerts.filter((a) => !QUIET.has(a.state));
  const early = bad.find((a) => a.at < f.at);
  const first = bad.find((a) => a.at >= f.at);
  if (!first) return { seed, shape: t.shape, ...(early ? { early: `${early.state}: ${early.reason}` } : {}) };
  const named = [...first.reason.matchAll(nodeRe)].map((m) => Number(m[1]));
  const multi = t.shape.nodes > 1 && f.culprit !== undefined;
  return {
    seed,
    shape: t.shape,
    minutes: (first.at - f.at) / MIN,
    state: first.state,
    reason: first.reason,
    ...(multi ? { named: named.includes(f.culprit!), wrong: named.some((x) => x !== f.culprit) } : {}),
    ...(early ? { early: `${early.state}: ${early.reason}` } : {}),
  };
}

export interface Report {
  readonly label: string;
  readonly from: number;
  readonly to: number;
  readonly runHours: number;
  readonly healthyRuns: number;
  readonly falseAlarms: number;
  /** False alarms by what they said (state and the rule's words). */
  readonly falseByKind: Readonly<Record<string, number>>;
  readonly examples: readonly string[];
  readonly faults: readonly Scored[];
  readonly sweeps: number;
}

/** What kind of alert: its state and the rule that spoke, for the false-alarm breakdown. */
function kindOf(state: string, reason: string): string {
  const rule = /^throughput fell/.test(reason)
    ? 'throughput'
    : /^(metadata|progress)\.json not updated/.test(reason)
      ? 'a heartbeat file stale'
      : /silent for/.test(reason)
        ? 'node silent'
        : /idle/.test(reason)
          ? 'idle GPUs'
          : /straggl/.test(reason)
            ? 'straggler'
            : '';
  return rule ? `${state} (${rule})` : state;
}

/** Runs `seeds`: one healthy run and one fault run per seed (the fault kinds in turn). */
export async function detectSeeds(
  seeds: readonly number[],
  d = defaults(),
): Promise<Omit<Report, 'label' | 'from' | 'to'>> {
  let falseAlarms = 0;
  let runHours = 0;
  let sweeps = 0;
  const examples: string[] = [];
  const faults: Scored[] = [];
  const falseByKind: Record<string, number> = {};
  for (const seed of seeds) {
    const h = await drive(simulate(healthyShape(seed)), d);
    runHours += (h.shape.end - h.shape.start) / (60 * MIN);
    sweeps += h.sweeps;
    for (const a of h.alerts.filter((x) => !QUIET.has(x.state))) {
      falseAlarms++;
      falseByKind[kindOf(a.state, a.reason)] = (falseByKind[kindOf(a.state, a.reason)] ?? 0) + 1;
      if (examples.length < 8)
        examples.push(
          `seed ${seed} (${h.shape.nodes} nodes, step ${h.shape.tau.toFixed(1)} s) at +${Math.round((a.at - h.shape.start) / MIN)}m: ${a.state}: ${a.reason}`,
        );
    }
    const f = await drive(simulate(faultShape(seed)), d);
    sweeps += f.sweeps;
    faults.push(score(f, seed));
  }
  return { runHours, healthyRuns: seeds.length, falseAlarms, falseByKind, examples, faults, sweeps };
}

const range = (from: number, to: number, step = 1, offset = 0) =>
  Array.from(
    { length: Math.max(0, Math.ceil((to - from + 1 - offset) / step)) },
    (_, i) => from + offset + i * step,
  );

/**
 * Runs seeds `from`–`to`, split over `workers` threads (seed by seed in turn; the result is the same
 * whatever the split: each trial depends on its seed alone).
 */
export async function detectSim(label: string, from: number, to: number, workers = 1): Promise<Report> {
  const parts =
    workers <= 1
      ? [await detectSeeds(range(from, to))]
      : await Promise.all(
          Array.from(
            { length: workers },
            (_, w) =>
              new Promise<Awaited<ReturnType<typeof detectSeeds>>>((resolve, reject) => {
                // tsx's loader does not reach a worker's entry: the worker registers it, then loads this file.
                const api = import.meta.resolve('tsx/esm/api');
                const code = `import(${JSON.stringify(api)}).then((t) => { t.register(); return import(${JSON.stringify(import.meta.url)}); });`;
                const worker = new Worker(code, {
                  eval: true,
                  workerData: { detectSeeds: range(from, to, workers, w) },
                });
                worker.once('message', resolve);
                worker.once('error', reject);
              }),
          ),
        );
  // Back in seed order, as one thread would have made them.
  const faults = parts.flatMap((p) => p.faults).sort((a, b) => a.seed - b.seed);
  return {
    label,
    from,
    to,
    runHours: parts.reduce((t, p) => t + p.runHours, 0),
    healthyRuns: parts.reduce((t, p) => t + p.healthyRuns, 0),
    falseAlarms: parts.reduce((t, p) => t + p.falseAlarms, 0),
    falseByKind: parts.reduce<Record<string, number>>((t, p) => {
      for (const [k, v] of Object.entries(p.falseByKind)) t[k] = (t[k] ?? 0) + v;
      return t;
    }, {}),
    examples: parts.flatMap((p) => p.examples).slice(0, 8),
    faults,
    sweeps: parts.reduce((t, p) => t + p.sweeps, 0),
  };
}

if (!isMainThread && (workerData as { detectSeeds?: number[] } | undefined)?.detectSeeds)
  parentPort!.postMessage(await detectSeeds((workerData as { detectSeeds: number[] }).detectSeeds));

// --- the report -------------------------------------------------------------------------------------------

const q = (xs: readonly number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]! : Number.NaN;
};
const m = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : Number.isNaN(x) ? '-' : 'none');
const pct = (x: number, of: number) => (of ? `${((100 * x) / of).toFixed(1)} %` : '-');

/** A group of fault trials: median and p95 minutes to the first unhealthy alert (missed ones count as ∞). */
function line(name: string, xs: readonly Scored[]): string {
  const found = xs.filter((x) => x.minutes !== undefined).map((x) => x.minutes!);
  const all = [...found, ...Array(xs.length - found.length).fill(Number.POSITIVE_INFINITY)];
  const states = new Map<string, number>();
  for (const x of xs) states.set(x.state ?? 'none', (states.get(x.state ?? 'none') ?? 0) + 1);
  const st = [...states]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const fmt = (v: number) => (v === Number.POSITIVE_INFINITY ? '>45' : m(v));
  return `  ${name.padEnd(34)}${String(xs.length).padStart(5)}${fmt(q(all, 0.5)).padStart(9)}${fmt(q(all, 0.95)).padStart(9)}   ${st}`;
}

const hang = (x: Scored) => ['collective', 'data_loader', 'lock'].includes(x.shape.fault!.kind);
const silent = (x: Scored) => ['frozen', 'dead'].includes(x.shape.fault!.kind);
const stepS = (x: Scored) => x.shape.tau * x.shape.every;

/** False alarms of the healthy-run rules (core/health), told apart from the detection rules'. */
const HEALTH_KINDS = /\((throughput|straggler|idle GPUs)\)$/;

/** The issue's targets on one report. */
export function targets(r: Report) {
  const fast = r.faults.filter((x) => hang(x) && stepS(x) <= 10);
  const stalled = (x: Scored) => (x.state === 'STALLED' ? x.minutes! : Number.POSITIVE_INFINITY);
  const fastT = fast.map(stalled);
  const upTo60 = r.faults.filter((x) => hang(x) && stepS(x) <= 60);
  const beforeWatchdog = upTo60.filter((x) => stalled(x) < 10).length;
  const gone = r.faults.filter(silent).map((x) => x.minutes ?? Number.POSITIVE_INFINITY);
  const stuckMulti = r.faults.filter((x) => x.named !== undefined);
  const named = stuckMulti.filter((x) => x.named).length;
  // The healthy-run rules' WARNINGs (core/health: throughput, stragglers, idle GPUs) are printed, not targeted here.
  const detection = Object.entries(r.falseByKind)
    .filter(([kind]) => !HEALTH_KINDS.test(kind))
    .reduce((t, [, n]) => t + n, 0);
  const checks: [string, boolean][] = [
    [`hang, step <= 10 s: STALLED median ${m(q(fastT, 0.5))} <= 3 min`, q(fastT, 0.5) <= 3],
    [`p95 ${m(q(fastT, 0.95))} <= 5 min`, q(fastT, 0.95) <= 5],
    [
      `hang, step <= 60 s: STALLED before a 10-min watchdog in ${pct(beforeWatchdog, upTo60.length)} (>= 95 %)`,
      beforeWatchdog >= 0.95 * upTo60.length,
    ],
    [`dead or frozen node: median ${m(q(gone, 0.5))} <= 3 min`, q(gone, 0.5) <= 3],
    [
      `culprit named first in ${pct(named, stuckMulti.length)} of ${stuckMulti.length} stuck multi-node runs (>= 95 %)`,
      named >= 0.95 * stuckMulti.length,
    ],
    [
      `detection false alarms (STALLED, TIMED_OUT, silent or missing nodes, stale heartbeats) ${detection} over ${Math.round(r.runHours).toLocaleString('en-US')} healthy run-hours == 0`,
      detection === 0,
    ],
  ];
  return { checks, pass: checks.every(([, ok]) => ok) };
}

/** The report's text. */
export function detectTable(r: Report, failures = 0): string {
  const lines = [
    `detect, ${r.label}, seeds ${r.from}–${r.to}: ${r.healthyRuns} healthy runs (${Math.round(r.runHours).toLocaleString('en-US')} run-hours), ${r.faults.length} fault runs, ${r.sweeps.toLocaleString('en-US')} sweeps of checkRun on the defaults`,
    `  minutes from the fault to the first unhealthy alert     runs   median      p95   first state`,
  ];
  for (const k of FAULTS) {
    const xs = r.faults.filter((x) => x.shape.fault!.kind === k);
    lines.push(line(k, xs));
    if (k === 'collective') {
      lines.push(
        line(
          '  one node desynced',
          xs.filter((x) => x.shape.fault!.variant === 'desync'),
        ),
      );
      lines.push(
        line(
          '  all wait (a rank outside)',
          xs.filter((x) => x.shape.fault!.variant === 'outside'),
        ),
      );
    }
  }
  const hangs = r.faults.filter(hang);
  lines.push('  hangs (collective, data loader, lock) by seconds between progress() calls:');
  for (const [a, b] of [
    [0, 10],
    [10, 60],
    [60, 1e9],
  ] as const)
    lines.push(
      line(
        `  ${a}–${b === 1e9 ? '' : b} s`,
        hangs.filter((x) => stepS(x) > a && stepS(x) <= b),
      ),
    );
  lines.push("  by the job's watchdog (10 min after the hang):");
  for (const w of ['none', 'nccl', 'gloo'] as const)
    lines.push(
      line(
        `  ${w}`,
        r.faults.filter((x) => x.shape.fault!.watchdog === w),
      ),
    );
  lines.push('  single-node / multi-node:');
  lines.push(
    line(
      '  1 node',
      r.faults.filter((x) => x.shape.nodes === 1),
    ),
  );
  lines.push(
    line(
      '  2–16 nodes',
      r.faults.filter((x) => x.shape.nodes > 1),
    ),
  );
  const multi = r.faults.filter((x) => x.named !== undefined);
  const byKind = FAULTS.map((k) => {
    const xs = multi.filter((x) => x.shape.fault!.kind === k);
    return `${k} ${pct(xs.filter((x) => x.named).length, xs.length)}`;
  }).join(', ');
  lines.push(
    `  culprit named in the first unhealthy alert: ${pct(multi.filter((x) => x.named).length, multi.length)} of ${multi.length} stuck multi-node runs (${byKind}); another node named: ${multi.filter((x) => x.wrong).length}`,
  );
  const early = r.faults.filter((x) => x.early);
  lines.push(
    `  false alarms: ${r.falseAlarms} on healthy runs (${((1000 * r.falseAlarms) / Math.max(1, r.runHours)).toFixed(2)} per 1,000 run-hours); ${early.length} fault runs alerted before their fault`,
  );
  const kinds = Object.entries(r.falseByKind).sort((a, b) => b[1] - a[1]);
  if (kinds.length) lines.push(`    by kind: ${kinds.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  for (const e of r.examples) lines.push(`    ${e}`);
  for (const e of early.slice(0, 3)) lines.push(`    before the fault (seed ${e.seed}): ${e.early}`);
  const t = targets(r);
  lines.push(`  targets: ${t.checks.map(([text, ok]) => `${ok ? 'PASS' : 'MISS'} ${text}`).join('; ')}`);
  if (failures > 0) {
    const missed = r.faults.filter(
      (x) => x.minutes === undefined || (hang(x) && x.state !== 'STALLED') || x.named === false,
    );
    lines.push(`  failures (first ${Math.min(failures, missed.length)} of ${missed.length}):`);
    for (const x of missed.slice(0, failures)) {
      const f = x.shape.fault!;
      lines.push(
        `    seed ${x.seed}, ${f.kind}/${f.variant}/${f.watchdog}, ${x.shape.nodes} nodes, culprit ${f.culprit ?? '-'}, call every ${stepS(x).toFixed(1)} s: ${x.minutes === undefined ? 'no alert' : `${m(x.minutes)} min ${x.state}: ${x.reason}`}`,
      );
    }
  }
  return lines.join('\n');
}

/** What the bench prints: the tuning seeds (with failures), then the held-out figures to quote. */
export async function detectSimReport(failures = 8, workers = 2): Promise<string> {
  const t = performance.now();
  const tuning = await detectSim('TUNING seeds (for looking at failures while tuning)', ...TUNING, workers);
  const held = await detectSim(
    'HELD-OUT seeds (never looked at while tuning: the figures to quote)',
    ...HELD_OUT,
    workers,
  );
  return [
    detectTable(tuning, failures),
    detectTable(held),
    `(detect: ${((performance.now() - t) / 1000).toFixed(0)} s)`,
  ].join('\n\n');
}

// `npx tsx bench/detectSim.ts [failures to show, default 8]`
if (isMainThread && import.meta.url === `file://${process.argv[1]}`) {
  console.log(await detectSimReport(Number(process.argv[2] ?? 8)));
}
