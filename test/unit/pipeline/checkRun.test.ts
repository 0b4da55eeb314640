import { describe, expect, it } from 'vitest';
import { LEASE_MS, MAX_ROUNDS } from '../../../lambdas/core/alerting/outbox.js';
import type { Thresholds } from '../../../lambdas/core/detection/thresholds.js';
import type { Notifier } from '../../../lambdas/core/model/ports.js';
import { checkRun } from '../../../lambdas/core/pipeline/checkRun.js';
import type { CheckDeps, Classifier } from '../../../lambdas/core/pipeline/deps.js';
import { sweep } from '../../../lambdas/core/pipeline/sweep.js';
import { MAX_JSON_BYTES } from '../../../lambdas/core/protocol/files.js';
import {
  FailingNotifier,
  FakeRunStore,
  FakeStateStore,
  NO_WAIT,
  RecordingNotifier,
} from '../../support/fakes.js';

const M = 60_000;
const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const T: Thresholds = {
  staleAfterMs: 10 * M,
  stallAfterMs: 30 * M,
  startupGraceMs: 15 * M,
  phaseStaleAfterMs: { checkpointing: 45 * M },
};
const classify: Classifier = (text) => ({ error_type: /out of memory/i.test(text) ? 'oom' : null });

function harness(opts: { notifiers?: Notifier[]; remindEveryMs?: number } = {}) {
  const runs = new FakeRunStore();
  const states = new FakeStateStore();
  const slack = new RecordingNotifier('slack');
  const sns = new RecordingNotifier('sns');
  const notifiers = opts.notifiers ?? [slack, sns];
  const deps: CheckDeps = {
    runs,
    states,
    notifiers,
    thresholds: T,
    classify,
    links: { bucket: 'b', prefix: 'training-runs', region: 'us-east-1' },
    remindEveryMs: opts.remindEveryMs,
    deliverOptions: NO_WAIT,
  };
  /** One check of `r1` at `now`, from a fresh LIST and the stored record (as a sweep would). */
  const check = async (now: number, runId = 'r1') =>
    checkRun(deps, (await runs.listRun(runId))!, await states.get(runId), now);
  /** Heartbeats of a healthy run at `at`. */
  const beat = (at: number, step: number, extra: Record<string, unknown> = {}) => {
    runs.put('r1', 'metadata', { run_id: 'r1', phase: 'training', last_update: at, ...extra }, at);
    runs.put('r1', 'progress', { step, total_steps: 1000, last_updated: at }, at);
  };
  return { runs, states, slack, sns, deps, check, beat };
}

/** A run stored as RUNNING at T0 (first check done, no alert: a new run entering RUNNING is quiet). */
async function runningAtT0(opts: Parameters<typeof harness>[0] = {}) {
  const h = harness(opts);
  h.beat(T0, 10);
  const first = await h.check(T0);
  expect(first).toMatchObject({ state: 'RUNNING', transitioned: true, delivered: 0 });
  return h;
}

describe('checkRun: transitions alert exactly once', () => {
  it('stores a new run without alerting, reading its heartbeats once', async () => {
    const h = await runningAtT0();
    expect(h.runs.reads.sort()).toEqual(['r1/metadata', 'r1/progress']);
    expect(h.states.flips).toEqual([expect.objectContaining({ from: undefined, to: 'RUNNING', version: 1 })]);
    const stored = await h.states.get('r1');
    expect(stored).toMatchObject({
      version: 1,
      facts: { step: 10, progressCheckedAt: T0 },
      meta: { phase: 'training' },
    });
    expect(h.slack.sent).toEqual([]);
  });

  it('a transition alerts every channel once, and the next check does not repeat it', async () => {
    const h = await runningAtT0();
    const out = await h.check(T0 + 11 * M);
    expect(out).toMatchObject({ from: 'RUNNING', state: 'TIMED_OUT', transitioned: true, delivered: 2 });
    expect(h.slack.sent).toHaveLength(1);
    expect(h.slack.sent[0]).toMatchObject({
      kind: 'transition',
      state: 'TIMED_OUT',
      previousState: 'RUNNING',
    });
    expect(h.sns.sent.map((a) => a.id)).toEqual(h.slack.sent.map((a) => a.id));
    const again = await h.check(T0 + 12 * M);
    expect(again).toMatchObject({ state: 'TIMED_OUT', transitioned: false, delivered: 0 });
    expect(h.slack.sent).toHaveLength(1);
    expect((await h.states.get('r1'))?.outbox).toEqual({});
  });

  it('alerts once when two checks race on the same stored version', async () => {
    const h = await runningAtT0();
    const stored = await h.states.get('r1');
    const run = (await h.runs.listRun('r1'))!;
    const now = T0 + 11 * M;
    const [a, b] = await Promise.all([
      checkRun(h.deps, run, stored, now),
      checkRun(h.deps, run, stored, now),
    ]);
    expect([a.transitioned, b.transitioned].sort()).toEqual([false, true]);
    expect([a.conflict, b.conflict].sort()).toEqual([false, true]);
    expect(h.slack.sent).toHaveLength(1);
    expect(h.sns.sent).toHaveLength(1);
    expect(h.states.flips.filter((f) => f.to === 'TIMED_OUT')).toHaveLength(1);
  });

  it('alerts once when two sweeps race', async () => {
    const h = await runningAtT0();
    h.runs.put('r2', 'metadata', {}, T0);
    const now = T0 + 11 * M;
    const deps = { ...h.deps, concurrency: 4 };
    const [a, b] = await Promise.all([sweep(deps, now), sweep(deps, now)]);
    expect(a.transitions.length + b.transitions.length).toBe(2);
    expect(a.conflicts + b.conflicts).toBe(2);
    expect(h.slack.sent.map((x) => `${x.runId}:${x.state}`).sort()).toEqual(['r1:TIMED_OUT', 'r2:TIMED_OUT']);
  });

  it('a lost conditional write returns a conflict, writes nothing and sends nothing', async () => {
    const h = await runningAtT0();
    const stale = await h.states.get('r1');
    // Another writer moved the run on after we read it.
    await h.states.update({ ...stale!, reason: 'someone else' }, stale!.version);
    const writes = h.states.writes;
    const run = (await h.runs.listRun('r1'))!;
    const out = await checkRun(h.deps, run, stale, T0 + 11 * M);
    expect(out).toMatchObject({ conflict: true, transitioned: false, wrote: false, delivered: 0 });
    expect(out.state).toBe('RUNNING');
    expect(h.states.writes).toBe(writes);
    expect(h.slack.sent).toEqual([]);
  });

  it('a run that starts within its grace goes PENDING → RUNNING without an alert', async () => {
    const h = harness();
    h.runs.put('r1', 'log', 'booting\n', T0);
    expect(await h.check(T0 + M)).toMatchObject({ state: 'PENDING', transitioned: true });
    h.beat(T0 + 5 * M, 0);
    expect(await h.check(T0 + 5 * M)).toMatchObject({
      from: 'PENDING',
      state: 'RUNNING',
      transitioned: true,
    });
    expect(h.states.flips.map((f) => f.to)).toEqual(['PENDING', 'RUNNING']);
    expect(h.slack.sent).toEqual([]);
  });

  it('a run that never sends a heartbeat times out after the grace, once', async () => {
    const h = harness();
    h.runs.put('r1', 'log', 'booting\n', T0);
    await h.check(T0 + M);
    await h.check(T0 + 15 * M);
    expect(h.slack.sent).toEqual([]);
    await h.check(T0 + 16 * M);
    await h.check(T0 + 17 * M);
    expect(h.slack.sent.map((a) => a.state)).toEqual(['TIMED_OUT']);
    expect(h.slack.sent[0]!.reason).toMatch(/^never started/);
  });

  it('records a run first seen a day after its last write without paging anyone (deploying onto old runs)', async () => {
    const h = harness();
    h.runs.put('r1', 'metadata', { run_id: 'r1' }, T0);
    h.runs.put('r1', 'error', 'torch.OutOfMemoryError: CUDA out of memory', T0);
    const out = await h.check(T0 + 25 * 60 * M);
    expect(out).toMatchObject({ state: 'FAILED', transitioned: true, delivered: 0 });
    expect(h.slack.sent).toEqual([]);
    expect((await h.states.get('r1'))!.errorType).toBe('oom');
  });

  it('still alerts for a run first seen with a recent failure', async () => {
    const h = harness();
    h.runs.put('r1', 'metadata', { run_id: 'r1' }, T0);
    h.runs.put('r1', 'error', 'torch.OutOfMemoryError: CUDA out of memory', T0 + 60 * M);
    await h.check(T0 + 2 * 60 * M);
    expect(h.slack.sent.map((a) => a.state)).toEqual(['FAILED']);
  });

  it('a recovery alerts, with the state it recovered from', async () => {
    const h = await runningAtT0();
    await h.check(T0 + 11 * M);
    h.beat(T0 + 12 * M, 20);
    const out = await h.check(T0 + 12 * M);
    expect(out).toMatchObject({ from: 'TIMED_OUT', state: 'RUNNING', delivered: 2 });
    expect(h.slack.sent.map((a) => a.state)).toEqual(['TIMED_OUT', 'RUNNING']);
    expect(h.slack.sent[1]!.previousState).toBe('TIMED_OUT');
  });

  it('a failure reads _error with the log tail and alerts with its type and last log line', async () => {
    const h = await runningAtT0();
    h.runs.put('r1', 'log', 'step 10 loss 2.0\ntorch.OutOfMemoryError: CUDA out of memory\n', T0 + M);
    h.runs.put(
      'r1',
      'error',
      'Traceback...\nRuntimeError: CUDA out of memory. Tried to allocate 2 GiB',
      T0 + M,
    );
    h.runs.reads.length = 0;
    const out = await h.check(T0 + 2 * M);
    expect(out).toMatchObject({ state: 'FAILED', transitioned: true });
    expect(h.runs.reads.sort()).toEqual(['r1/error', 'r1/log']);
    expect(h.slack.sent[0]).toMatchObject({
      state: 'FAILED',
      errorType: 'oom',
      reason: 'RuntimeError: CUDA out of memory. Tried to allocate 2 GiB',
      lastLogLine: 'torch.OutOfMemoryError: CUDA out of memory',
    });
    expect(h.states.flips.at(-1)).toMatchObject({ to: 'FAILED', errorType: 'oom' });
  });

  it('never downloads an oversized heartbeat or _complete: the LIST size is enough', async () => {
    const h = await runningAtT0();
    const huge = 'x'.repeat(MAX_JSON_BYTES + 1);
    h.runs.put('r1', 'metadata', huge, T0 + M);
    h.runs.put('r1', 'complete', huge, T0 + M);
    h.runs.reads.length = 0;
    expect(await h.check(T0 + M)).toMatchObject({ state: 'SUCCEEDED', transitioned: true });
    expect(h.runs.reads).toEqual([]);
  });

  it('an alerting transition reads the log tail for the alert even when nothing else needs it', async () => {
    const h = await runningAtT0();
    h.runs.put('r1', 'log', 'NCCL WARN Timeout\n', T0);
    await h.check(T0 + 11 * M);
    expect(h.slack.sent[0]).toMatchObject({ state: 'TIMED_OUT', lastLogLine: 'NCCL WARN Timeout' });
  });
});

describe('checkRun: sparse reads and writes', () => {
  it('a healthy run with nothing changed causes no read and no write', async () => {
    const h = await runningAtT0();
    const reads = h.runs.reads.length;
    const writes = h.states.writes;
    const out = await h.check(T0 + 5 * M);
    expect(out).toMatchObject({ state: 'RUNNING', wrote: false, transitioned: false });
    expect(h.runs.reads.length).toBe(reads);
    expect(h.states.writes).toBe(writes);
  });

  it('a healthy run whose progress changed is read only when due, then written', async () => {
    const h = await runningAtT0();
    h.beat(T0 + 5 * M, 60);
    const reads = h.runs.reads.length;
    expect(await h.check(T0 + 5 * M)).toMatchObject({ wrote: false });
    expect(h.runs.reads.length).toBe(reads);
    h.beat(T0 + 15 * M, 160);
    expect(await h.check(T0 + 15 * M)).toMatchObject({ wrote: true, transitioned: false, state: 'RUNNING' });
    expect(h.runs.reads.slice(reads)).toEqual(['r1/progress']);
    expect((await h.states.get('r1'))?.facts).toMatchObject({ step: 160, stepAdvancedAt: T0 + 15 * M });
  });

  it('detects a stall while the heartbeats keep coming', async () => {
    const h = await runningAtT0();
    // The script keeps rewriting both files, but step 10 never moves.
    for (let m = 5; m <= 35; m += 5) {
      h.beat(T0 + m * M, 10);
      await h.check(T0 + m * M);
    }
    expect(h.slack.sent.map((a) => a.state)).toEqual(['STALLED']);
    expect(h.slack.sent[0]!.reason).toMatch(/^step 10 has not advanced for 3[0-5]m/);
  });

  it('picks up a new phase when a transition is in sight, and stays quiet if it explains the silence', async () => {
    const h = await runningAtT0();
    // progress.json stops while checkpointing; metadata.json keeps coming and says why.
    h.runs.put('r1', 'metadata', { phase: 'checkpointing' }, T0 + 11 * M);
    const out = await h.check(T0 + 12 * M);
    expect(out).toMatchObject({ state: 'RUNNING', transitioned: false, wrote: true });
    expect((await h.states.get('r1'))?.meta?.phase).toBe('checkpointing');
    expect(h.slack.sent).toEqual([]);
  });

  it('an invalid metadata.json warns, and its fix recovers the run', async () => {
    const h = harness();
    h.beat(T0, 10);
    h.runs.put('r1', 'metadata', '{"phase": "training"', T0);
    expect(await h.check(T0)).toMatchObject({ state: 'WARNING', transitioned: true });
    expect(h.slack.sent[0]!.reason).toMatch(/^invalid heartbeat: metadata\.json is not valid JSON/);
    h.beat(T0 + M, 30);
    expect(await h.check(T0 + M)).toMatchObject({ from: 'WARNING', state: 'RUNNING', transitioned: true });
    expect((await h.states.get('r1'))?.facts.findings).toBeUndefined();
  });

  it('a clock skew warns, and a fixed clock recovers the run', async () => {
    const h = harness();
    h.beat(T0, 10, { last_update: T0 + 20 * M });
    expect(await h.check(T0)).toMatchObject({ state: 'WARNING' });
    expect(h.slack.sent[0]!.reason).toMatch(/^clock skew: metadata\.json last_update is 20m ahead/);
    h.beat(T0 + M, 30);
    expect(await h.check(T0 + M)).toMatchObject({ state: 'RUNNING' });
  });

  it('an invalid progress.json is found when progress is due, and a valid one recovers the run at once', async () => {
    const h = await runningAtT0();
    h.beat(T0 + 15 * M, 10);
    h.runs.put('r1', 'progress', { step: 'twelve' }, T0 + 15 * M);
    expect(await h.check(T0 + 15 * M)).toMatchObject({ state: 'WARNING', transitioned: true });
    h.beat(T0 + 16 * M, 20);
    expect(await h.check(T0 + 16 * M)).toMatchObject({ state: 'RUNNING', transitioned: true });
  });
});

describe('checkRun: RESTARTING', () => {
  /** A run that failed at T0+5m and that remediation marked RESTARTING at T0+10m. */
  async function restarted() {
    const h = await runningAtT0();
    h.runs.put('r1', 'error', 'RuntimeError: NCCL timeout', T0 + 5 * M);
    await h.check(T0 + 5 * M);
    const r = (await h.states.get('r1'))!;
    expect(r.state).toBe('FAILED');
    await h.states.update({ ...r, state: 'RESTARTING', restartIssuedAt: T0 + 10 * M, attempt: 2 }, r.version);
    return h;
  }

  it("waits quietly, then recovers on the new attempt's first heartbeat", async () => {
    const h = await restarted();
    const sent = h.slack.sent.length;
    expect(await h.check(T0 + 12 * M)).toMatchObject({ state: 'RESTARTING', wrote: false });
    h.runs.put('r1', 'metadata', { phase: 'training', attempt: 2 }, T0 + 13 * M);
    h.runs.put('r1', 'progress', { step: 5 }, T0 + 13 * M);
    expect(await h.check(T0 + 13 * M)).toMatchObject({
      from: 'RESTARTING',
      state: 'RUNNING',
      transitioned: true,
    });
    expect(h.slack.sent.slice(sent).map((a) => `${a.previousState}→${a.state}`)).toEqual([
      'RESTARTING→RUNNING',
    ]);
    const stored = (await h.states.get('r1'))!;
    expect(stored).toMatchObject({ attempt: 2, facts: { step: 5, firstStep: 5, firstStepAt: T0 + 13 * M } });
    expect(stored.restartIssuedAt).toBeUndefined();
  });

  it('times out when the new attempt sends nothing within the startup grace', async () => {
    const h = await restarted();
    expect(await h.check(T0 + 25 * M)).toMatchObject({ state: 'RESTARTING' });
    const out = await h.check(T0 + 25 * M + 1);
    expect(out).toMatchObject({ from: 'RESTARTING', state: 'TIMED_OUT', transitioned: true });
    expect(h.slack.sent.at(-1)!.reason).toMatch(/attempt 2 never sent a heartbeat/);
  });
});

describe('checkRun: delivery outbox', () => {
  it('a failing channel does not block the others, waits in the outbox, and is retried alone after the lease', async () => {
    const slack = new FailingNotifier('slack', 1);
    const sns = new RecordingNotifier('sns');
    const h = await runningAtT0({ notifiers: [slack, sns] });
    const now = T0 + 11 * M;
    expect(await h.check(now)).toMatchObject({ state: 'TIMED_OUT', delivered: 1, failed: 1 });
    expect(sns.sent).toHaveLength(1);
    const outbox = Object.values((await h.states.get('r1'))!.outbox ?? {});
    expect(outbox).toEqual([
      expect.objectContaining({ pending: ['slack'], attempts: 1, leaseUntil: now + LEASE_MS }),
    ]);

    expect(await h.check(now + LEASE_MS - 1)).toMatchObject({ delivered: 0, wrote: false });
    expect(slack.calls).toBe(1);

    expect(await h.check(now + LEASE_MS)).toMatchObject({ delivered: 1, failed: 0, wrote: true });
    expect(slack.sent.map((a) => a.id)).toEqual(sns.sent.map((a) => a.id));
    expect(sns.sent).toHaveLength(1);
    expect((await h.states.get('r1'))!.outbox).toEqual({});
  });

  it('a permanent failure gives up at once into undelivered', async () => {
    const slack = new FailingNotifier('slack', Number.POSITIVE_INFINITY, true);
    const h = await runningAtT0({ notifiers: [slack, new RecordingNotifier('sns')] });
    await h.check(T0 + 11 * M);
    const stored = (await h.states.get('r1'))!;
    expect(stored.outbox).toEqual({});
    expect(stored.undelivered).toEqual([
      { alertId: 'r1:2:transition', channel: 'slack', error: 'slack is down', at: T0 + 11 * M },
    ]);
    await h.check(T0 + 11 * M + 10 * LEASE_MS);
    expect(slack.calls).toBe(1);
  });

  it(`a channel failing for ${MAX_ROUNDS} rounds gives up into undelivered`, async () => {
    const slack = new FailingNotifier('slack');
    const h = await runningAtT0({ notifiers: [slack] });
    let now = T0 + 11 * M;
    await h.check(now);
    for (let i = 0; i < 10 && slack.calls < MAX_ROUNDS; i++) {
      now = (await h.states.get('r1'))!.outbox!['r1:2:transition']!.leaseUntil;
      await h.check(now);
    }
    expect(slack.calls).toBe(MAX_ROUNDS);
    const stored = (await h.states.get('r1'))!;
    expect(stored.outbox).toEqual({});
    expect(stored.undelivered).toEqual([
      expect.objectContaining({ channel: 'slack', alertId: 'r1:2:transition' }),
    ]);
    await h.check(now + 100 * LEASE_MS);
    expect(slack.calls).toBe(MAX_ROUNDS);
  });

  it('two checks racing on a due outbox entry send it once', async () => {
    const slack = new FailingNotifier('slack', 1);
    const h = await runningAtT0({ notifiers: [slack] });
    await h.check(T0 + 11 * M);
    const stored = await h.states.get('r1');
    const run = (await h.runs.listRun('r1'))!;
    const now = T0 + 11 * M + LEASE_MS;
    await Promise.all([checkRun(h.deps, run, stored, now), checkRun(h.deps, run, stored, now)]);
    expect(slack.sent).toHaveLength(1);
  });
});

describe('checkRun: errors and reminders', () => {
  it('a throwing read backs the run off; checks within the backoff are skipped', async () => {
    const h = await runningAtT0();
    h.runs.put('r1', 'error', 'boom', T0 + M);
    h.runs.failing.add('r1');
    const now = T0 + 2 * M;
    const out = await h.check(now);
    expect(out.error).toMatch(/S3 GetObject failed/);
    expect(out).toMatchObject({ state: 'RUNNING', transitioned: false, delivered: 0 });
    expect((await h.states.get('r1'))!.backoff).toEqual({ failures: 1, until: now + M, error: out.error });

    const reads = h.runs.reads.length;
    expect(await h.check(now + M - 1)).toMatchObject({ skipped: true });
    expect(h.runs.reads.length).toBe(reads);

    const again = await h.check(now + M);
    expect(again.error).toBeDefined();
    expect((await h.states.get('r1'))!.backoff).toMatchObject({ failures: 2, until: now + M + 2 * M });

    h.runs.failing.delete('r1');
    const healed = await h.check(now + 3 * M);
    expect(healed).toMatchObject({ state: 'FAILED', transitioned: true });
    expect((await h.states.get('r1'))!.backoff).toBeUndefined();
  });

  it('a failing run does not affect another run in the same sweep', async () => {
    const h = await runningAtT0();
    h.runs.put('r2', 'metadata', {}, T0);
    h.runs.failing.add('r2');
    const summary = await sweep({ ...h.deps, concurrency: 2 }, T0 + M);
    expect(summary.errors).toEqual([{ runId: 'r2', error: expect.stringMatching(/S3 GetObject failed/) }]);
    expect(summary.runs).toBe(2);
    // r2 was never stored: it stays as first seen (PENDING), with no backoff to write.
    expect(summary.byState).toMatchObject({ RUNNING: 1, PENDING: 1 });
    expect(await h.states.get('r2')).toBeUndefined();
  });

  it('reminds while a run stays unhealthy, every remindEveryMs', async () => {
    const h = await runningAtT0({ remindEveryMs: 60 * M });
    const down = T0 + 11 * M;
    await h.check(down);
    await h.check(down + 59 * M);
    expect(h.slack.sent).toHaveLength(1);
    const out = await h.check(down + 60 * M);
    expect(out).toMatchObject({ state: 'TIMED_OUT', transitioned: false, delivered: 2 });
    expect(h.slack.sent.map((a) => a.kind)).toEqual(['transition', 'reminder']);
    expect(h.slack.sent[1]).toMatchObject({ state: 'TIMED_OUT', previousState: 'TIMED_OUT' });
    expect(h.states.flips.at(-1)).toMatchObject({ from: 'TIMED_OUT', to: 'TIMED_OUT' });
    await h.check(down + 119 * M);
    expect(h.slack.sent).toHaveLength(2);
    await h.check(down + 120 * M);
    expect(h.slack.sent).toHaveLength(3);
  });

  it('does not remind without remindEveryMs, nor for a healthy run', async () => {
    const quiet = await runningAtT0();
    await quiet.check(T0 + 11 * M);
    await quiet.check(T0 + 30 * 24 * 60 * M);
    expect(quiet.slack.sent).toHaveLength(1);
    const healthy = await runningAtT0({ remindEveryMs: M });
    healthy.beat(T0 + 5 * M, 50);
    await healthy.check(T0 + 5 * M);
    expect(healthy.slack.sent).toEqual([]);
  });
});
