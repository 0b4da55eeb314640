import { describe, expect, it, vi } from 'vitest';
import { MAX_SKEW_MS } from '../../../lambdas/core/model/findings.js';
import type { RunRecord } from '../../../lambdas/core/model/record.js';
import type { Classifier } from '../../../lambdas/core/pipeline/deps.js';
import { classifyError, newRecord, observe } from '../../../lambdas/core/pipeline/observe.js';
import { MAX_JSON_BYTES } from '../../../lambdas/core/protocol/files.js';
import { bytes, listed, obj, record } from '../../support/fakes.js';

const M = 60_000;
const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

/** Observes one read of metadata.json written at `at` with `body`. */
function readMetadata(r: RunRecord, body: unknown, at = NOW - M, size?: number): RunRecord {
  const run = listed({ metadata: obj('metadata', at, size === undefined ? {} : { size }) });
  return observe(r, run, { metadata: size === undefined ? bytes(body) : undefined }, NOW);
}

/** Observes one read of progress.json written at `at` with `body`. */
function readProgress(r: RunRecord, body: unknown, at: number, now = NOW): RunRecord {
  return observe(r, listed({ progress: at }), { progress: bytes(body) }, now);
}

describe('observe: metadata.json', () => {
  it('folds the fields evaluation and alerts need into the record, with the ETag read', () => {
    const r = readMetadata(record(), {
      run_id: 'r1',
      status: 'running',
      phase: 'training',
      last_update: iso(NOW - M),
      instance_id: 'i-0abc',
      job_name: 'llama',
      started_at: '2025-06-01T10:00:00',
      attempt: 3,
      stale_minutes: 20,
      profile: 'nccl',
      log_path: '/logs/train.log',
      checkpoint_dir: '/ckpt',
      custom: { kept: true },
    });
    expect(r.meta).toEqual({
      phase: 'training',
      status: 'running',
      instanceId: 'i-0abc',
      jobName: 'llama',
      startedAt: Date.UTC(2025, 5, 1, 10),
      attempt: 3,
      staleMinutes: 20,
      profile: 'nccl',
      logPath: '/logs/train.log',
      checkpointDir: '/ckpt',
    });
    expect(r.attempt).toBe(3);
    expect(r.facts.etags.metadata).toBe(obj('metadata', NOW - M).etag);
    expect(r.facts.findings).toBeUndefined();
  });

  it('keeps the attempt it knows when metadata names none', () => {
    expect(readMetadata(record({ attempt: 2 }), { phase: 'x' }).attempt).toBe(2);
  });

  it('does not touch a record that did not read it, nor mutate its input', () => {
    const before = record({ meta: { phase: 'setup' } });
    const frozen = structuredClone(before);
    const r = observe(before, listed({ metadata: NOW }), {}, NOW);
    expect(r).toEqual(before);
    readMetadata(before, { phase: 'training' });
    expect(before).toEqual(frozen);
  });

  it('an invalid file is a finding that keeps what was known, and a valid read clears it', () => {
    const known = record({ meta: { phase: 'training' } });
    const bad = readMetadata(known, '{"phase": ');
    expect(bad.facts.findings?.['metadata.json']).toMatch(
      /^invalid heartbeat: metadata\.json is not valid JSON/,
    );
    expect(bad.meta).toEqual({ phase: 'training' });
    expect(bad.facts.etags.metadata).toBeDefined();
    const good = readMetadata(bad, { phase: 'eval' });
    expect(good.facts.findings).toBeUndefined();
    expect(good.meta?.phase).toBe('eval');
  });

  it('a wrongly typed field is an invalid file that names the field', () => {
    const r = readMetadata(record(), { stale_minutes: 'ten' });
    expect(r.facts.findings?.['metadata.json']).toMatch(
      /^invalid heartbeat: metadata\.json: stale_minutes: /,
    );
  });

  it('judges an oversized file by its LIST size without its body', () => {
    const r = readMetadata(record(), undefined, NOW - M, MAX_JSON_BYTES + 1);
    expect(r.facts.findings?.['metadata.json']).toBe(
      `invalid heartbeat: metadata.json is ${MAX_JSON_BYTES + 1} bytes (at most ${MAX_JSON_BYTES})`,
    );
  });

  it('records the ETag of a file that vanished between LIST and GET, and changes nothing else', () => {
    const run = listed({ metadata: NOW - M });
    const r = observe(record({ meta: { phase: 'p' } }), run, { metadata: undefined }, NOW);
    expect(r.meta).toEqual({ phase: 'p' });
    expect(r.facts.findings).toBeUndefined();
    expect(r.facts.etags.metadata).toBe(run.files.metadata!.etag);
  });
});

describe('observe: clock skew', () => {
  const lm = NOW - M;

  it.each([
    {
      name: 'ahead',
      offset: MAX_SKEW_MS + 1000,
      text: /metadata\.json last_update is 5m 1s ahead of S3's clock/,
    },
    { name: 'behind', offset: -(6 * M), text: /metadata\.json last_update is 6m behind S3's clock/ },
  ])('reports a metadata timestamp $name of LastModified', ({ offset, text }) => {
    const r = readMetadata(record(), { last_update: iso(lm + offset) }, lm);
    const findings = Object.values(r.facts.findings ?? {});
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatch(text);
  });

  it('tolerates exactly the maximum skew', () => {
    expect(readMetadata(record(), { last_update: iso(lm + MAX_SKEW_MS) }, lm).facts.findings).toBeUndefined();
    expect(readMetadata(record(), { last_update: iso(lm - MAX_SKEW_MS) }, lm).facts.findings).toBeUndefined();
  });

  it('reads unix seconds as a timestamp', () => {
    expect(readMetadata(record(), { last_update: lm / 1000 }, lm).facts.findings).toBeUndefined();
    expect(readMetadata(record(), { last_update: lm / 1000 - 3600 }, lm).facts.findings).toBeDefined();
  });

  it('reports a timestamp that is not one', () => {
    const r = readMetadata(record(), { last_update: 'yesterday' }, lm);
    expect(Object.values(r.facts.findings ?? {})).toEqual([
      'metadata.json: last_update "yesterday" is not a timestamp',
    ]);
  });

  it('reports progress.json skew, and a later read without skew clears it', () => {
    const skewed = readProgress(record(), { step: 1, last_updated: iso(lm - 10 * M) }, lm);
    expect(Object.values(skewed.facts.findings ?? {})).toEqual([
      expect.stringMatching(/progress\.json last_updated is 10m behind/),
    ]);
    const fixed = readProgress(skewed, { step: 2, last_updated: iso(lm + M) }, lm + M);
    expect(fixed.facts.findings).toBeUndefined();
  });

  it('a fixed metadata clock clears its finding', () => {
    const skewed = readMetadata(record(), { last_update: iso(lm + 10 * M) }, lm);
    expect(readMetadata(skewed, { last_update: iso(lm) }, lm).facts.findings).toBeUndefined();
  });

  it('a progress read without skew does not clear a metadata skew finding (no flapping)', () => {
    const skewed = readMetadata(record(), { last_update: iso(lm + 10 * M) }, lm);
    const after = readProgress(skewed, { step: 5, last_updated: iso(lm) }, lm);
    expect(Object.values(after.facts.findings ?? {})).toEqual([
      expect.stringMatching(/metadata\.json last_update/),
    ]);
  });

  it('a metadata read without skew does not clear a progress skew finding', () => {
    const skewed = readProgress(record(), { step: 1, last_updated: iso(lm - 10 * M) }, lm);
    const after = readMetadata(skewed, { last_update: iso(lm) }, lm);
    expect(Object.values(after.facts.findings ?? {})).toEqual([
      expect.stringMatching(/progress\.json last_updated/),
    ]);
  });
});

describe('observe: progress.json and step tracking', () => {
  const t0 = NOW - 60 * M;

  it('folds step, totals and loss, and starts tracking from the first step seen', () => {
    const r = readProgress(record(), { step: 100, total_steps: 1000, loss: 2.5, last_updated: iso(t0) }, t0);
    expect(r.facts).toMatchObject({
      step: 100,
      totalSteps: 1000,
      loss: 2.5,
      stepAdvancedAt: t0,
      progressCheckedAt: NOW,
      firstStep: 100,
      firstStepAt: t0,
    });
    expect(r.facts.etags.progress).toBe(obj('progress', t0).etag);
  });

  it('folds learning_rate (shown in alerts and status); a later file without one clears it', () => {
    const r = readProgress(record(), { step: 100, learning_rate: 3e-4 }, t0);
    expect(r.facts.learningRate).toBe(3e-4);
    expect(readProgress(r, { step: 101 }, t0 + M).facts.learningRate).toBeUndefined();
  });

  it('an advanced step moves stepAdvancedAt to the progress LastModified (not to now)', () => {
    const first = readProgress(record(), { step: 100 }, t0);
    const next = readProgress(first, { step: 150 }, t0 + 10 * M);
    expect(next.facts).toMatchObject({
      step: 150,
      stepAdvancedAt: t0 + 10 * M,
      firstStep: 100,
      firstStepAt: t0,
    });
  });

  it('an unchanged step keeps stepAdvancedAt while progressCheckedAt moves on', () => {
    const first = readProgress(record(), { step: 100 }, t0, NOW - 30 * M);
    const same = readProgress(first, { step: 100, loss: 1.9 }, t0 + 20 * M);
    expect(same.facts).toMatchObject({ step: 100, stepAdvancedAt: t0, progressCheckedAt: NOW, loss: 1.9 });
  });

  it('a resumed attempt below the first step rebases the rate', () => {
    const known = record({
      facts: { step: 900, firstStep: 500, firstStepAt: t0 - 60 * M, stepAdvancedAt: t0 },
    });
    const resumed = readProgress(known, { step: 400 }, t0 + 5 * M);
    expect(resumed.facts).toMatchObject({
      step: 400,
      firstStep: 400,
      firstStepAt: t0 + 5 * M,
      stepAdvancedAt: t0 + 5 * M,
    });
  });

  it('a resumed attempt above the first step keeps the rate base', () => {
    const known = record({
      facts: { step: 900, firstStep: 500, firstStepAt: t0 - 60 * M, stepAdvancedAt: t0 },
    });
    expect(readProgress(known, { step: 700 }, t0 + 5 * M).facts).toMatchObject({
      firstStep: 500,
      firstStepAt: t0 - 60 * M,
    });
  });

  it("a restarted attempt's first progress starts a new stall clock and rate, even at the same step", () => {
    const restartAt = t0 + 2 * M;
    const known = record({
      restartIssuedAt: restartAt,
      facts: { step: 900, firstStep: 500, firstStepAt: t0 - 60 * M, stepAdvancedAt: t0 },
    });
    expect(readProgress(known, { step: 900 }, t0 + 5 * M).facts).toMatchObject({
      step: 900,
      stepAdvancedAt: t0 + 5 * M,
      firstStep: 900,
      firstStepAt: t0 + 5 * M,
    });
  });

  it('null totals and loss clear what was known', () => {
    const known = record({ facts: { step: 1, totalSteps: 10, loss: 3 } });
    const r = readProgress(known, { step: 2, total_steps: null, loss: null }, t0);
    expect(r.facts.totalSteps).toBeUndefined();
    expect(r.facts.loss).toBeUndefined();
  });

  it.each([
    ['a string step', { step: '12' }],
    ['a negative step', { step: -1 }],
    ['a fractional step', { step: 1.5 }],
    ['a missing step', { loss: 1 }],
  ])('%s is an invalid file: step stays, the read is still counted', (_name, body) => {
    const known = record({ facts: { step: 40, stepAdvancedAt: t0 } });
    const r = readProgress(known, body, t0 + M);
    expect(r.facts.findings?.['progress.json']).toMatch(/^invalid heartbeat: progress\.json: step: /);
    expect(r.facts).toMatchObject({ step: 40, stepAdvancedAt: t0, progressCheckedAt: NOW });
    expect(readProgress(r, { step: 41 }, t0 + 2 * M).facts.findings).toBeUndefined();
  });

  it('an oversized progress.json is judged by its LIST size', () => {
    const run = listed({ progress: obj('progress', t0, { size: MAX_JSON_BYTES + 1 }) });
    const r = observe(record({ facts: { step: 3 } }), run, { progress: undefined }, NOW);
    expect(r.facts.findings?.['progress.json']).toMatch(/is 262145 bytes/);
    expect(r.facts.step).toBe(3);
  });
});

describe('observe: _error, log and _complete', () => {
  const run = listed({ metadata: NOW - M, error: NOW - M, log: NOW - M });

  it('takes the last line of _error as the message and the type from the injected classifier', async () => {
    const classify = vi.fn<Classifier>((text) => ({
      error_type: text.includes('out of memory') ? 'oom' : null,
    }));
    const known = record({ meta: { profile: 'production' } });
    const reads = {
      error: bytes(
        'Traceback (most recent call last):\n  File "train.py"\r\nRuntimeError: CUDA out of memory\n\n',
      ),
      log: bytes('step 1\nstep 2 loss 1.0\n'),
    };
    const r = await classifyError(observe(known, run, reads, NOW), reads, classify);
    expect(r.facts.errorMessage).toBe('RuntimeError: CUDA out of memory');
    expect(r.errorType).toBe('oom');
    expect(r.facts.lastLogLine).toBe('step 2 loss 1.0');
    expect(r.facts.etags.error).toBe(run.files.error!.etag);
    expect(classify).toHaveBeenCalledTimes(1);
    const [text, profile] = classify.mock.calls[0]!;
    expect(text).toContain('CUDA out of memory');
    expect(text).toContain('step 2 loss 1.0');
    expect(text).not.toContain('\r');
    expect(profile).toBe('production');
  });

  it('an empty _error still has a message, and is classified (asynchronously: the rules load on first use)', async () => {
    const reads = { error: new Uint8Array() };
    const r = await classifyError(observe(record(), run, reads, NOW), reads, async () => ({
      error_type: 'exception',
    }));
    expect(r.facts.errorMessage).toBe('_error written (empty)');
    expect(r.errorType).toBe('exception');
  });

  it('decodes non-UTF-8 error text leniently', () => {
    const raw = new Uint8Array([...bytes('NCCL error: '), 0xff, 0xfe, ...bytes(' bad')]);
    const r = observe(record(), run, { error: raw }, NOW);
    expect(r.facts.errorMessage).toBe('NCCL error: \uFFFD\uFFFD bad');
  });

  it('a _complete summary with an integer step sets the step; text or a bad step does not', () => {
    const done = listed({ complete: NOW });
    const at = (body: unknown) =>
      observe(record({ facts: { step: 7 } }), done, { complete: bytes(body) }, NOW);
    expect(at({ step: 1000, loss: 0.1 }).facts.step).toBe(1000);
    expect(at({ step: 1.5 }).facts.step).toBe(7);
    expect(at('done').facts.step).toBe(7);
    expect(at('').facts.step).toBe(7);
    expect(at({ step: 1000 }).facts.etags.complete).toBe(done.files.complete!.etag);
  });
});

describe('newRecord', () => {
  it('starts PENDING at version 0 with the LIST first-seen time', () => {
    const run = listed({ log: NOW - 3 * M }, NOW - 4 * M);
    expect(newRecord(run, NOW)).toEqual({
      runId: 'r1',
      state: 'PENDING',
      reason: 'first seen',
      attempt: 1,
      version: 0,
      since: NOW,
      updatedAt: NOW,
      firstSeenAt: NOW - 4 * M,
      facts: { etags: {} },
    });
  });
});
