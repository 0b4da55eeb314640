import { describe, expect, it } from 'vitest';
import { actionFor, severityFor } from '../../../lambdas/core/alerting/actions.js';
import { buildAlert, etaMs, type Links } from '../../../lambdas/core/alerting/alerts.js';
import type { RunRecord } from '../../../lambdas/core/model/record.js';
import { ALERT_PROGRESS_KEYS } from '../../../lambdas/core/model/slices/attempt.js';
import { record } from '../../support/fakes.js';

const M = 60_000;
const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const LINKS: Links = { bucket: 'ml-heartbeats', prefix: 'training-runs', region: 'eu-west-1' };

describe('buildAlert', () => {
  const failed: RunRecord = record({
    runId: 'llama-7b.ft_2',
    state: 'FAILED',
    reason: 'RuntimeError: CUDA out of memory',
    errorType: 'oom',
    attempt: 2,
    version: 7,
    firstSeenAt: NOW - 5 * 60 * M,
    meta: { instanceId: 'i-0abc', jobName: 'llama', phase: 'training', startedAt: NOW - 3 * 60 * M },
    facts: { step: 500, totalSteps: 1000, loss: 1.25, lastLogLine: 'CUDA out of memory' },
  });

  it('carries everything a channel shows', () => {
    const alert = buildAlert(failed, {
      kind: 'transition',
      previousState: 'RUNNING',
      now: NOW,
      links: LINKS,
      details: ['GPU memory 79/80 GiB'],
    });
    expect(alert).toEqual({
      id: 'llama-7b.ft_2:7:transition',
      kind: 'transition',
      runId: 'llama-7b.ft_2',
      state: 'FAILED',
      previousState: 'RUNNING',
      reason: 'RuntimeError: CUDA out of memory',
      action: actionFor('FAILED', 'oom'),
      severity: severityFor('FAILED'),
      at: NOW,
      since: failed.since,
      attempt: 2,
      errorType: 'oom',
      instanceId: 'i-0abc',
      jobName: 'llama',
      phase: 'training',
      durationMs: 3 * 60 * M,
      step: 500,
      totalSteps: 1000,
      etaMs: undefined,
      loss: 1.25,
      lastLogLine: 'CUDA out of memory',
      details: ['GPU memory 79/80 GiB'],
      s3Uri: 's3://ml-heartbeats/training-runs/llama-7b.ft_2/',
      consoleUrl:
        'https://s3.console.aws.amazon.com/s3/buckets/ml-heartbeats?region=eu-west-1&prefix=training-runs%2Fllama-7b.ft_2%2F',
    });
    expect(alert.action).not.toBe(actionFor('FAILED', null));
  });

  it('is plain JSON-safe data', () => {
    const alert = buildAlert(failed, { kind: 'transition', now: NOW, links: LINKS });
    expect(JSON.parse(JSON.stringify(alert))).toEqual(
      Object.fromEntries(Object.entries(alert).filter(([, v]) => v !== undefined)),
    );
  });

  it('copies the attempt’s progress into the alert’s own flat fields, and nothing else of the facts', () => {
    const facts = {
      step: 5,
      totalSteps: 10,
      loss: 1.5,
      learningRate: 3e-4,
      lastLogLine: 'step 5',
      stepAdvancedAt: NOW - M,
      firstStep: 1,
      firstStepAt: NOW - 10 * M,
      findings: { x: 'y' },
      errorMessage: 'boom',
    };
    const alert = buildAlert(record({ facts }), { kind: 'transition', now: NOW, links: LINKS });
    const wire = JSON.parse(JSON.stringify(alert));
    expect(wire).toMatchObject({
      step: 5,
      totalSteps: 10,
      loss: 1.5,
      learningRate: 3e-4,
      lastLogLine: 'step 5',
    });
    expect(
      Object.keys(wire)
        .filter((k) => k in facts)
        .sort(),
    ).toEqual([...ALERT_PROGRESS_KEYS].sort());
    expect(wire).not.toHaveProperty('facts');
  });

  it('ids differ by version and kind, so channels can de-duplicate', () => {
    const a = buildAlert(failed, { kind: 'transition', now: NOW, links: LINKS }).id;
    const b = buildAlert(failed, { kind: 'reminder', now: NOW, links: LINKS }).id;
    const c = buildAlert({ ...failed, version: 8 }, { kind: 'transition', now: NOW, links: LINKS }).id;
    expect(new Set([a, b, c]).size).toBe(3);
  });

  it('measures duration from first seen without started_at, never negative', () => {
    const r = record({ firstSeenAt: NOW - 10 * M });
    expect(buildAlert(r, { kind: 'transition', now: NOW, links: LINKS }).durationMs).toBe(10 * M);
    const future = record({ meta: { startedAt: NOW + M } });
    expect(buildAlert(future, { kind: 'transition', now: NOW, links: LINKS }).durationMs).toBe(0);
  });

  it('drops a null error type and empty details', () => {
    const alert = buildAlert(record({ state: 'FAILED', errorType: null }), {
      kind: 'transition',
      now: NOW,
      links: LINKS,
      details: [],
    });
    expect(alert.errorType).toBeUndefined();
    expect(alert.details).toBeUndefined();
    expect(alert.action).toBe(actionFor('FAILED', null));
  });

  it('builds links for an empty prefix, a nested prefix and a dotted bucket', () => {
    const root = buildAlert(record({ runId: 'r1' }), {
      kind: 'transition',
      now: NOW,
      links: { bucket: 'b', prefix: '', region: 'us-east-1' },
    });
    expect(root.s3Uri).toBe('s3://b/r1/');
    expect(root.consoleUrl).toBe(
      'https://s3.console.aws.amazon.com/s3/buckets/b?region=us-east-1&prefix=r1%2F',
    );
    const nested = buildAlert(record({ runId: 'r1' }), {
      kind: 'transition',
      now: NOW,
      links: { bucket: 'my.bucket', prefix: 'ml/team a', region: 'us-east-1' },
    });
    expect(nested.s3Uri).toBe('s3://my.bucket/ml/team a/r1/');
    expect(nested.consoleUrl).toBe(
      'https://s3.console.aws.amazon.com/s3/buckets/my.bucket?region=us-east-1&prefix=ml%2Fteam%20a%2Fr1%2F',
    );
  });
});

describe('ETA', () => {
  const t0 = NOW - 60 * M;
  // 100 → 600 in 50 minutes: 10 steps a minute; 1000 steps left → 100 minutes.
  const running = record({
    state: 'RUNNING',
    facts: { step: 600, totalSteps: 1600, firstStep: 100, firstStepAt: t0, stepAdvancedAt: t0 + 50 * M },
  });

  it('extrapolates the rate between the first step seen and the latest advance', () => {
    expect(etaMs(running.facts)).toBe(100 * M);
    expect(buildAlert(running, { kind: 'transition', now: NOW, links: LINKS }).etaMs).toBe(100 * M);
  });

  it('is zero past the total, and only shown for RUNNING', () => {
    expect(etaMs({ ...running.facts, totalSteps: 500 })).toBe(0);
    const stalled = { ...running, state: 'STALLED' } as const;
    expect(etaMs(stalled.facts)).toBe(100 * M);
    expect(buildAlert(stalled, { kind: 'transition', now: NOW, links: LINKS }).etaMs).toBeUndefined();
  });

  it.each([
    ['no total', { totalSteps: undefined }],
    ['a zero total', { totalSteps: 0 }],
    ['no first step', { firstStep: undefined }],
    ['no step', { step: undefined }],
    ['no advance since the first step', { step: 100 }],
    ['no time between the two points', { stepAdvancedAt: t0 }],
    ['no advance time', { stepAdvancedAt: undefined }],
  ])('is unknown with %s', (_name, overrides) => {
    expect(etaMs({ ...running.facts, ...overrides })).toBeUndefined();
  });
});
