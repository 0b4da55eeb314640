import { describe, expect, it } from 'vitest';
import type { RemediationDeps } from '../../lambdas/core/remediation/index.js';
import { objectKeys } from '../../lambdas/events/objectCreated.js';
import { parseWith } from '../../lambdas/events/parse.js';
import { Transition } from '../../lambdas/events/transition.js';
import { handleRemediation } from '../../lambdas/handlers/remediate.js';

const transition = (detail: Record<string, unknown>) => ({
  source: 'trainwatch',
  'detail-type': 'Training Run State Change',
  detail: { kind: 'transition', state: 'FAILED', runId: 'run-1', id: 'run-1:2:transition', ...detail },
});
const s3Event = (key: string) => ({
  source: 'aws.s3',
  'detail-type': 'Object Created',
  detail: { bucket: { name: 'b' }, object: { key } },
});
const sqs = (...bodies: unknown[]) => ({
  Records: bodies.map((b, i) => ({
    messageId: `m${i}`,
    body: typeof b === 'string' ? b : JSON.stringify(b),
  })),
});

describe('Transition', () => {
  it('takes a remediable transition and keeps its id for deduplication', () => {
    expect(parseWith(transition({}), Transition)).toEqual({
      ok: true,
      data: { runId: 'run-1', state: 'FAILED', alertId: 'run-1:2:transition' },
    });
    expect(parseWith(transition({ id: 7 }), Transition)).toMatchObject({
      ok: true,
      data: { alertId: undefined },
    });
  });

  it.each([
    [{ kind: 'reminder' }, 'alert kind reminder is not a transition'],
    [{ state: 'RUNNING' }, 'state RUNNING needs no remediation'],
    [
      { state: 'WARNING', reason: 'node 3 silent for 12m' },
      'a WARNING needs no remediation unless throughput dropped',
    ],
    [{ runId: '../etc' }, 'detail.runId is missing or invalid'],
    [{ runId: undefined }, 'detail.runId is missing or invalid'],
  ])('ignores %j, saying why', (detail, why) => {
    const r = parseWith(transition(detail), Transition);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.problem).toContain(why);
  });

  it('takes a throughput-drop WARNING: diagnosed (the NCCL transport), never restarted', () => {
    expect(
      parseWith(
        transition({
          state: 'WARNING',
          reason: 'throughput fell 52 % (48.2k → 23.1k tokens/s) since 14:05 UTC',
        }),
        Transition,
      ),
    ).toMatchObject({ ok: true, data: { state: 'WARNING' } });
  });

  it('says so when the event has no detail', () => {
    expect(parseWith({ source: 'x' }, Transition)).toMatchObject({ ok: false });
    expect(parseWith(null, Transition)).toMatchObject({ ok: false });
  });
});

describe('objectKeys', () => {
  it('reads one EventBridge event or an SQS batch of them, reporting what is not one', () => {
    expect(objectKeys(s3Event('p/run-1/_error'))).toEqual({
      keys: [{ bucket: 'b', key: 'p/run-1/_error' }],
      invalid: [],
    });
    const batch = objectKeys(
      sqs(s3Event('p/a/_error'), 'not json', { source: 'aws.s3' }, s3Event('p/b/_complete')),
    );
    expect(batch.keys.map((k) => k.key)).toEqual(['p/a/_error', 'p/b/_complete']);
    expect(batch.invalid).toHaveLength(2);
    expect(batch.invalid[0]).toContain('not JSON');
  });
});

describe('handleRemediation', () => {
  // A state store that fails for one run (a DynamoDB outage there) and knows no other.
  const deps = {
    states: {
      get: async (runId: string) => {
        if (runId === 'boom') throw new Error('DynamoDB unavailable');
        return undefined;
      },
    },
  } as unknown as RemediationDeps;

  it('reports only the SQS records whose remediation threw, for redelivery; ignored ones are not retried', async () => {
    const out = await handleRemediation(
      deps,
      sqs(
        transition({ runId: 'boom' }),
        transition({ runId: 'gone' }),
        'not json',
        transition({ kind: 'x' }),
      ),
      () => 0,
    );
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
    expect(out.outcomes).toEqual([{ runId: 'gone', skipped: 'no such run' }]);
  });

  it('reports every record when all of them threw, without throwing itself', async () => {
    const out = await handleRemediation(
      deps,
      sqs(transition({ runId: 'boom' }), transition({ runId: 'boom' })),
      () => 0,
    );
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: 'm0' }, { itemIdentifier: 'm1' }]);
  });

  it('throws for a direct EventBridge event, so Lambda retries it and then dead-letters it', async () => {
    await expect(handleRemediation(deps, transition({ runId: 'boom' }), () => 0)).rejects.toThrow(
      'DynamoDB unavailable',
    );
    expect(await handleRemediation(deps, transition({ state: 'SUCCEEDED' }), () => 0)).toEqual({
      outcomes: [],
      batchItemFailures: [],
    });
  });
});
