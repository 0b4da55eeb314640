// A real recording of a training run's S3 writes (test/fixtures/device/), replayed into the sweep in simulated
// time, in-process: every write in order, a check of the run every 60 s of recorded time as the deployed schedule
// does, on the watchdog's DEFAULT configuration (loadConfig of an environment with only the bucket and the table:
// no stall or stale threshold, so both are learned from the run's cadence; health rules on with their defaults).
// Used by the local mode (its last section) and by test/unit/detection/recordedDefaults.test.ts.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../lambdas/config.js';
import { formatDuration } from '../lambdas/core/base/duration.js';
import { DEFAULT_HEALTH_SETTINGS } from '../lambdas/core/health/index.js';
import type { Alert } from '../lambdas/core/model/alert.js';
import { type ObjectInfo, type RunFiles, RunGrouper, splitRunKey } from '../lambdas/core/model/listing.js';
import type { Notifier, RunStore, StateStore } from '../lambdas/core/model/ports.js';
import type { OutboxEntry, RunRecord } from '../lambdas/core/model/record.js';
import { type CheckDeps, checkRun } from '../lambdas/core/pipeline/index.js';
import { RunFile, type RunFileName } from '../lambdas/core/protocol/files.js';

/** The recordings made on a real machine (scripts/device-check.sh): torch on CPU, two nodes on gloo. */
export const RECORDINGS = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'test',
  'fixtures',
  'device',
  'cpu-gloo',
);
const PREFIX = 'training-runs';
/** The deployed sweep's schedule. */
export const SWEEP_S = 60;
/** Where the sweep falls within the minute, after the first write: an alert moves by up to a minute with it. */
export const PHASES_S = [1, 11, 21, 31, 41, 51] as const;

/** One S3 write of a recording: when (epoch seconds), what, and the bytes of a put. */
export interface RecordedOp {
  readonly t: number;
  readonly op: 'put' | 'delete';
  /** The full key, `training-runs/{run}/{path}`. */
  readonly key: string;
  /** The key within the run's folder (`nodes/1.json`). */
  readonly path: string;
  readonly body?: Buffer;
}

/**
 * A recording's writes, in time order: `ops-{pid}.jsonl` of each process (time, op, key) with the bytes of
 * each put from `writes/` (named `{time}-{pid}-{seq}-{key with / as _}`).
 */
export function readRecording(dir: string): RecordedOp[] {
  const bodies = new Map<string, Buffer>();
  for (const name of readdirSync(join(dir, 'writes')))
    bodies.set(name, readFileSync(join(dir, 'writes', name)));
  const ops: RecordedOp[] = [];
  for (const log of readdirSync(dir).filter((f) => f.startsWith('ops-'))) {
    const pid = log.slice('ops-'.length, -'.jsonl'.length);
    for (const line of readFileSync(join(dir, log), 'utf8').trim().split('\n')) {
      const o = JSON.parse(line) as { t: number; op: 'put' | 'delete'; key: string };
      const path = splitRunKey(PREFIX, o.key)?.path;
      if (path === undefined) throw new Error(`${log}: ${o.key} is not under ${PREFIX}/{run}/`);
      let body: Buffer | undefined;
      if (o.op === 'put') {
        const name = [...bodies.keys()].find(
          (n) => n.startsWith(`${o.t.toFixed(3)}-${pid}-`) && n.endsWith(o.key.replaceAll('/', '_')),
        );
        body = name === undefined ? undefined : bodies.get(name);
        if (!body) throw new Error(`${log}: no body in writes/ for the put of ${o.key} at ${o.t}`);
      }
      ops.push({ t: o.t, op: o.op, key: o.key, path, body });
    }
  }
  return ops.sort((a, b) => a.t - b.t);
}

/** The puts of keys ending in `suffix`, in order. */
export const puts = (ops: readonly RecordedOp[], suffix: string) =>
  ops.filter((o) => o.op === 'put' && o.key.endsWith(suffix));

/** A put's body as JSON. */
export const bodyJson = (o: RecordedOp) => JSON.parse(o.body!.toString('utf8')) as Record<string, unknown>;

/** When the training threads made their last progress() call: node 1's first stacks file, less its stuck_s. */
export function faultAt(ops: readonly RecordedOp[]): number {
  const first = puts(ops, 'stacks/1.json')[0]!;
  return first.t - (bodyJson(first).stuck_s as number);
}

/** Where a replay writes: one run's folder (S3, `lastModified` in epoch ms) and the sweep's check of it. */
export interface ReplayTarget {
  put(path: string, body: string, lastModified: number): void;
  delete(path: string): void;
  check(now: number): Promise<unknown>;
}

/**
 * Replays the writes into `target`, checking the run every `everyS` of recorded time (the deployed sweep's
 * minute unless told) from `phaseS` after the first write (where the sweep falls within the minute moves an
 * alert by up to a minute) while it is at most `afterS` (`everyS` unless told) past the last write.
 */
export async function replay(
  ops: readonly RecordedOp[],
  target: ReplayTarget,
  { phaseS, everyS = SWEEP_S, afterS = everyS }: { phaseS: number; everyS?: number; afterS?: number },
): Promise<void> {
  let next = 0;
  for (let at = ops[0]!.t + phaseS; at <= ops.at(-1)!.t + afterS; at += everyS) {
    for (; next < ops.length && ops[next]!.t <= at; next++) {
      const o = ops[next]!;
      if (o.op === 'put') target.put(o.path, o.body!.toString('utf8'), Math.round(o.t * 1000));
      else target.delete(o.path);
    }
    await target.check(Math.round(at * 1000));
  }
}

/** The watchdog's defaults: an environment with only what has no default. */
export function defaultSettings(): Pick<CheckDeps, 'thresholds' | 'health'> {
  const config = loadConfig({ TRAINWATCH_BUCKET: 'b', TRAINWATCH_TABLE: 't' });
  return { thresholds: config.thresholds, health: { ...DEFAULT_HEALTH_SETTINGS, ...config.health } };
}

/** What a replay never calls: it checks one run, as the sweep would, and does nothing else the sweep does. */
const unused = async (): Promise<never> => {
  throw new Error('a replay only checks its run');
};

/** One run's folder in memory: LIST through RunGrouper, as the S3 adapter groups its pages. */
class FolderInMemory implements RunStore {
  private readonly objects = new Map<string, { info: ObjectInfo; body: Uint8Array }>();
  private etags = 0;
  constructor(private readonly runId: string) {}
  put(path: string, body: string, lastModified: number) {
    const data = new TextEncoder().encode(body);
    const key = `${PREFIX}/${this.runId}/${path}`;
    this.objects.set(path, {
      info: { key, lastModified, etag: `"${++this.etags}"`, size: data.length },
      body: data,
    });
  }
  delete(path: string) {
    this.objects.delete(path);
  }
  async listRun(): Promise<RunFiles | undefined> {
    const g = new RunGrouper(PREFIX);
    for (const o of this.objects.values()) g.add(o.info);
    return g.result()[0];
  }
  listRuns = unused;
  async read(_runId: string, file: RunFileName, tailBytes?: number) {
    const b = this.objects.get(RunFile[file])?.body;
    return b && tailBytes !== undefined && b.length > tailBytes ? b.subarray(b.length - tailBytes) : b;
  }
  async readNode(_runId: string, rank: number) {
    return this.objects.get(`nodes/${rank}.json`)?.body;
  }
  async readStack(_runId: string, rank: number) {
    return this.objects.get(`stacks/${rank}.json`)?.body;
  }
  moveToEnded = unused;
}

/** One run's record in memory, written only on the version it was read at (as DynamoDB's conditions do). */
class RecordInMemory implements StateStore {
  record: RunRecord | undefined;
  /** The flip (the run's history) is not kept: a replay reads its alerts, not its history. */
  async transition(next: RunRecord, _flip: unknown, expected: number) {
    if ((this.record?.version ?? 0) !== expected) return false;
    this.record = { ...next, version: expected + 1 };
    return true;
  }
  update = (next: RunRecord, expected: number) => this.transition(next, undefined, expected);
  /** The recorder never fails, so nothing is ever given up on (`gaveUp` is always empty here). */
  async settleOutbox(_runId: string, alertId: string, entry: OutboxEntry | null) {
    const r = this.record;
    if (!r?.outbox?.[alertId]) return;
    const { [alertId]: _settled, ...rest } = r.outbox;
    this.record = { ...r, version: r.version + 1, outbox: entry ? { ...rest, [alertId]: entry } : rest };
  }
  // The rest of the port is the sweep's (listing, ending, on-call locks, `trainwatch status`), not a check's.
  get = unused;
  loadLive = unused;
  find = unused;
  revive = unused;
  end = unused;
  acquireLock = unused;
  releaseLock = unused;
  history = unused;
}

/** Replays a recording as its one run on the default configuration; the alerts the run was sent, in order. */
export async function replayOnDefaults(ops: readonly RecordedOp[], phaseS: number): Promise<Alert[]> {
  const runId = splitRunKey(PREFIX, ops[0]!.key)!.runId;
  const runs = new FolderInMemory(runId);
  const states = new RecordInMemory();
  const sent: Alert[] = [];
  const slack: Notifier = { channel: 'slack', notify: async (a) => void sent.push(a) };
  const deps: CheckDeps = {
    ...defaultSettings(),
    runs,
    states,
    notifiers: [slack],
    classify: () => ({ error_type: null }),
    links: { bucket: 'b', prefix: PREFIX, region: 'us-east-1' },
    deliverOptions: { attempts: 1, sleep: async () => {} },
  };
  await replay(
    ops,
    {
      put: (path, body, at) => runs.put(path, body, at),
      delete: (path) => runs.delete(path),
      check: async (now) => checkRun(deps, (await runs.listRun())!, states.record, now),
    },
    { phaseS },
  );
  return sent;
}

/** The recording the local mode replays, and how it was made. */
const SHOWN = {
  name: 'hang-default',
  how: "torch 2.15 on CPU, torchrun, two nodes on gloo, the Python client's defaults; ~0.5 s steps for ~4 minutes, then node 1's data loader blocks for good while node 0 waits in all_reduce",
};

/**
 * The local mode's last section: its own story runs on short thresholds set explicitly, so the learned ones
 * (nothing configured; never under 2 minutes) are shown on a real recording, replayed on the defaults.
 */
export async function learnedThresholdsSection(): Promise<string[]> {
  const ops = readRecording(join(RECORDINGS, SHOWN.name));
  const fault = faultAt(ops) * 1000;
  const firsts: (Alert | undefined)[] = [];
  for (const phase of PHASES_S)
    firsts.push((await replayOnDefaults(ops, phase)).find((a) => a.state !== 'RUNNING'));
  const into = (a: Alert | undefined) => (a ? formatDuration(a.at - fault) : 'never');
  const sorted = firsts.map((a) => a?.at ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
  const shown = firsts[0];
  return [
    'Learned thresholds (nothing configured): a real recording replayed on the defaults, in simulated time',
    `  test/fixtures/device/cpu-gloo/${SHOWN.name}: ${SHOWN.how}`,
    `  its ${ops.length} S3 writes, in order, into the sweep's check of the run, a sweep every ${SWEEP_S} s; no TRAINWATCH_STALL_AFTER or _STALE_AFTER`,
    shown
      ? `  ${shown.state} ${into(shown)} into the hang: ${shown.reason}`
      : '  no alert: the run stayed RUNNING',
    `  (the sweep ${PHASES_S[0]} s into the recording's first minute; with it at ${PHASES_S.join(', ')} s, the first alert comes ${into(firsts.find((a) => a?.at === sorted[0]))} to ${into(firsts.find((a) => a?.at === sorted.at(-1)))} into the hang)`,
  ];
}
