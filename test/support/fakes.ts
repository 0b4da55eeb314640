import { DeliveryError } from '../../lambdas/core/base/errors.js';
import type { Alert } from '../../lambdas/core/model/alert.js';
import { type ObjectInfo, type RunFiles, RunGrouper } from '../../lambdas/core/model/listing.js';
import type {
  AttemptArchive,
  MovedFiles,
  Notifier,
  RunStore,
  StateStore,
} from '../../lambdas/core/model/ports.js';
import type { Ended, Flip, OutboxEntry, RunRecord, Undelivered } from '../../lambdas/core/model/record.js';
import type { AttemptFacts } from '../../lambdas/core/model/slices/attempt.js';
import { RunFile, type RunFileName } from '../../lambdas/core/protocol/files.js';

const encoder = new TextEncoder();

/** Bytes of a JSON value or a string, as a training script would write them. */
export function bytes(body: unknown): Uint8Array {
  if (body instanceof Uint8Array) return body;
  return encoder.encode(typeof body === 'string' ? body : JSON.stringify(body));
}

/** An in-memory bucket of heartbeat files: LIST from `RunGrouper`, GETs counted, faults on demand. */
export class FakeRunStore implements RunStore {
  private readonly objects = new Map<string, { info: ObjectInfo; body: Uint8Array }>();
  private etagCounter = 0;
  /** Every GET, as `runId/file`. */
  readonly reads: string[] = [];
  /** Runs whose reads throw (an S3 outage for one prefix). */
  readonly failing = new Set<string>();
  /** Files moved to ended folders, by key (`trainwatch-ended/{run}/{stamp}/{path}`). */
  readonly ended = new Map<string, { info: ObjectInfo; body: Uint8Array }>();
  /** Called between listing a run and moving its files (a writer racing the move). */
  beforeMove?: (runId: string) => void;

  constructor(readonly prefix = 'training-runs') {}

  private key(runId: string, path: string): string {
    return `${this.prefix}/${runId}/${path}`;
  }

  /** Writes a protocol file (or any path under the run) with the server's `lastModified`. */
  put(runId: string, file: RunFileName | string, body: unknown, lastModified: number): ObjectInfo {
    const path = file in RunFile ? RunFile[file as RunFileName] : file;
    const data = bytes(body);
    const info: ObjectInfo = {
      key: this.key(runId, path),
      lastModified,
      etag: `"etag-${++this.etagCounter}"`,
      size: data.length,
    };
    this.objects.set(info.key, { info, body: data });
    return info;
  }

  /** Deletes a protocol file (or any path under the run). */
  delete(runId: string, file: RunFileName | string): void {
    this.objects.delete(this.key(runId, file in RunFile ? RunFile[file as RunFileName] : file));
  }

  private group(): RunGrouper {
    const g = new RunGrouper(this.prefix);
    for (const { info } of this.objects.values()) g.add(info);
    return g;
  }

  async listRuns(): Promise<{ runs: RunFiles[]; ignored: { key: string; problem: string }[] }> {
    const g = this.group();
    return { runs: g.result(), ignored: [...g.ignored] };
  }

  async listRun(runId: string): Promise<RunFiles | undefined> {
    return this.group()
      .result()
      .find((r) => r.runId === runId);
  }

  /** The LIST view of one run, synchronously (for tests that call core functions directly). */
  run(runId: string): RunFiles {
    const found = this.group()
      .result()
      .find((r) => r.runId === runId);
    if (!found) throw new Error(`no run ${runId}`);
    return found;
  }

  async read(runId: string, file: RunFileName, tailBytes?: number): Promise<Uint8Array | undefined> {
    this.reads.push(`${runId}/${file}`);
    await Promise.resolve();
    if (this.failing.has(runId)) throw new Error(`S3 GetObject failed for ${runId}/${RunFile[file]}`);
    const body = this.objects.get(this.key(runId, RunFile[file]))?.body;
    if (!body) return undefined;
    return tailBytes !== undefined && body.length > tailBytes ? body.subarray(body.length - tailBytes) : body;
  }

  async moveToEnded(runId: string, stamp: string, _seen?: RunFiles): Promise<MovedFiles> {
    const from = `${this.prefix}/${runId}/`;
    const folder = `trainwatch-ended/${runId}/${stamp}/`;
    const listed = [...this.objects.values()].filter((o) => o.info.key.startsWith(from)).map((o) => o.info);
    this.beforeMove?.(runId);
    const changed: string[] = [];
    let moved = 0;
    for (const info of listed) {
      const now = this.objects.get(info.key);
      if (!now) continue;
      if (now.info.etag !== info.etag) {
        changed.push(info.key);
        continue;
      }
      this.ended.set(`${folder}${info.key.slice(from.length)}`, now);
      this.objects.delete(info.key);
      moved++;
    }
    return { folder, moved, changed };
  }

  async readNode(runId: string, rank: number): Promise<Uint8Array | undefined> {
    this.reads.push(`${runId}/nodes/${rank}`);
    await Promise.resolve();
    if (this.failing.has(runId)) throw new Error(`S3 GetObject failed for ${runId}/nodes/${rank}.json`);
    return this.objects.get(this.key(runId, `nodes/${rank}.json`))?.body;
  }

  async readStack(runId: string, rank: number): Promise<Uint8Array | undefined> {
    this.reads.push(`${runId}/stacks/${rank}`);
    await Promise.resolve();
    return this.objects.get(this.key(runId, `stacks/${rank}.json`))?.body;
  }
}

/** Deep copy, like a round trip through DynamoDB (no shared references between writers). */
const copy = <T>(v: T): T => structuredClone(v);

/**
 * An in-memory StateStore that enforces the port's contract: every write but `settleOutbox` is
 * conditional on the version (0: the run must not exist) and stores `expectedVersion + 1`;
 * `settleOutbox` bumps the version unconditionally and does nothing when the entry is gone.
 */
export class FakeStateStore implements StateStore {
  readonly records = new Map<string, RunRecord>();
  readonly flips: Flip[] = [];
  /** Successful conditional writes (transition + update), for "wrote nothing" assertions. */
  writes = 0;
  /** Conditional writes that lost. */
  conflicts = 0;
  settles = 0;

  /** Seeds a stored record as-is (its version is what a reader will see). */
  seed(r: RunRecord): RunRecord {
    this.records.set(r.runId, copy(r));
    return copy(r);
  }

  private cas(next: RunRecord, expectedVersion: number): boolean {
    const stored = this.records.get(next.runId);
    // An ended run is written only through revive (in DynamoDB its item is elsewhere).
    const current = stored?.ended ? -1 : (stored?.version ?? 0);
    if (current !== expectedVersion) {
      this.conflicts++;
      return false;
    }
    this.records.set(next.runId, copy({ ...next, version: expectedVersion + 1 }));
    this.writes++;
    return true;
  }

  /** Every record, live and ended (for assertions). */
  async loadAll(): Promise<Map<string, RunRecord>> {
    return new Map([...this.records].map(([k, v]) => [k, copy(v)]));
  }

  async loadLive(): Promise<Map<string, RunRecord>> {
    return new Map([...this.records].filter(([, v]) => !v.ended).map(([k, v]) => [k, copy(v)]));
  }

  async find(runIds: readonly string[]): Promise<Map<string, RunRecord>> {
    const out = new Map<string, RunRecord>();
    for (const id of runIds) {
      const r = this.records.get(id);
      if (r?.ended) out.set(id, copy(r));
    }
    return out;
  }

  async revive(next: RunRecord, expectedVersion: number): Promise<boolean> {
    const r = this.records.get(next.runId);
    if (!r?.ended || r.version !== expectedVersion) return false;
    this.records.set(next.runId, copy({ ...next, version: expectedVersion + 1 }));
    return true;
  }

  async end(r: RunRecord, ended: Ended, flip: Flip): Promise<boolean> {
    const now = this.records.get(r.runId);
    if (!now || now.ended || now.version !== r.version) return false;
    this.records.set(r.runId, copy({ ...r, ended, version: r.version + 1, updatedAt: ended.at }));
    this.flips.push(copy(flip));
    return true;
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const r = this.records.get(runId);
    return r ? copy(r) : undefined;
  }

  async transition(next: RunRecord, flip: Flip, expectedVersion: number): Promise<boolean> {
    await Promise.resolve();
    if (!this.cas(next, expectedVersion)) return false;
    this.flips.push(copy(flip));
    return true;
  }

  async update(next: RunRecord, expectedVersion: number): Promise<boolean> {
    await Promise.resolve();
    return this.cas(next, expectedVersion);
  }

  async settleOutbox(
    runId: string,
    alertId: string,
    entry: OutboxEntry | null,
    gaveUp: readonly Undelivered[],
    at: number,
  ): Promise<void> {
    await Promise.resolve();
    const r = this.records.get(runId);
    if (!r?.outbox?.[alertId]) return;
    this.settles++;
    const outbox = { ...r.outbox };
    if (entry) outbox[alertId] = copy(entry);
    else delete outbox[alertId];
    this.records.set(runId, {
      ...r,
      version: r.version + 1,
      outbox,
      ...(gaveUp.length ? { undelivered: [...(r.undelivered ?? []), ...copy(gaveUp)], updatedAt: at } : {}),
    });
  }

  async acquireLock(
    runId: string,
    name: string,
    owner: string,
    untilMs: number,
    nowMs: number,
  ): Promise<boolean> {
    const r = this.records.get(runId);
    if (!r) return false;
    const held = r.locks?.[name];
    if (held && held.until >= nowMs && held.owner !== owner) return false;
    this.records.set(runId, {
      ...r,
      version: r.version + 1,
      locks: { ...r.locks, [name]: { owner, until: untilMs } },
    });
    return true;
  }

  async releaseLock(runId: string, name: string, owner: string): Promise<void> {
    const r = this.records.get(runId);
    if (r?.locks?.[name]?.owner !== owner) return;
    const locks = { ...r.locks };
    delete locks[name];
    this.records.set(runId, { ...r, version: r.version + 1, locks });
  }

  async history(runId: string, limit = 50): Promise<Flip[]> {
    return this.flips
      .filter((f) => f.runId === runId)
      .reverse()
      .slice(0, limit)
      .map(copy);
  }
}

/** A channel that records what it was sent. */
/** An attempt archive that records the keys it would write (`run/attempts/N/file`) in `archived`. */
export function recordingArchive(archived: string[]): AttemptArchive {
  return {
    archive: async (runId, attempt, files) =>
      files.map((f) => archived[archived.push(`${runId}/attempts/${attempt}/${f}`) - 1]!),
  };
}

export class RecordingNotifier implements Notifier {
  readonly sent: Alert[] = [];
  constructor(readonly channel: string) {}
  async notify(alert: Alert): Promise<void> {
    this.sent.push(alert);
  }
}

/**
 * A channel that fails the next `failures` calls with a DeliveryError (permanent or not), then
 * delivers; `Infinity` fails for ever. Every call is counted, delivered or not.
 */
export class FailingNotifier implements Notifier {
  readonly sent: Alert[] = [];
  calls = 0;
  constructor(
    readonly channel: string,
    public failures = Number.POSITIVE_INFINITY,
    readonly permanent = false,
  ) {}
  async notify(alert: Alert): Promise<void> {
    this.calls++;
    if (this.failures > 0) {
      this.failures--;
      throw new DeliveryError(`${this.channel} is down`, this.permanent);
    }
    this.sent.push(alert);
  }
}

/** `deliverOptions` for tests: one try per round, no waiting. */
export const NO_WAIT = { attempts: 1, sleep: async () => {} } as const;

/** A LIST entry for one protocol file of run `r1` (etag derived from the time unless given). */
export function obj(
  file: RunFileName,
  lastModified: number,
  extra: Partial<ObjectInfo> = {},
  runId = 'r1',
): ObjectInfo {
  return {
    key: `training-runs/${runId}/${RunFile[file]}`,
    lastModified,
    etag: `"${file}@${lastModified}"`,
    size: 100,
    ...extra,
  };
}

/** What a LIST shows of one run: each file by its LastModified (or a full ObjectInfo). */
export function listed(
  files: Partial<Record<RunFileName, number | ObjectInfo>>,
  firstSeenAt?: number,
  runId = 'r1',
): RunFiles {
  const out: Partial<Record<RunFileName, ObjectInfo>> = {};
  for (const [name, v] of Object.entries(files) as [RunFileName, number | ObjectInfo][])
    out[name] = typeof v === 'number' ? obj(name, v, {}, runId) : v;
  const times = Object.values(out).map((o) => o.lastModified);
  return { runId, files: out, firstSeenAt: firstSeenAt ?? Math.min(...times) };
}

/** What `record` takes: any field of a run record, and any of its attempt's facts (`etags` need not be named). */
export type RecordOverrides = Partial<Omit<RunRecord, 'facts'>> & { readonly facts?: Partial<AttemptFacts> };

/** A stored run record with sensible defaults (RUNNING, version 3). */
export function record(overrides: RecordOverrides = {}): RunRecord {
  return {
    runId: 'r1',
    state: 'RUNNING',
    reason: 'heartbeats fresh',
    attempt: 1,
    version: 3,
    since: 0,
    updatedAt: 0,
    firstSeenAt: 0,
    ...overrides,
    facts: { etags: {}, ...overrides.facts },
  };
}
