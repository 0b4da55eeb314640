import { describe, expect, it, vi } from 'vitest';
import { deliver } from '../../../lambdas/core/alerting/deliver.js';
import { DeliveryError } from '../../../lambdas/core/base/errors.js';
import type { Alert } from '../../../lambdas/core/model/alert.js';
import type { Notifier } from '../../../lambdas/core/model/ports.js';

const ALERT: Alert = {
  id: 'r1:1:transition',
  kind: 'transition',
  runId: 'r1',
  state: 'FAILED',
  reason: 'boom',
  action: 'fix it',
  severity: 'critical',
  at: 0,
  attempt: 1,
  s3Uri: 's3://b/p/r1/',
  consoleUrl: 'https://example.invalid/',
};

/** A channel that fails with the given errors, in order, then succeeds. */
function channel(name: string, failures: unknown[] = []) {
  const queue = [...failures];
  const notify = vi.fn(async (_alert: Alert) => {
    const next = queue.shift();
    if (next !== undefined) throw next;
  });
  return { channel: name, notify } satisfies Notifier;
}

const transient = (msg = 'slow down') => new DeliveryError(msg, false);
const permanent = (msg = 'gone') => new DeliveryError(msg, true);

describe('deliver', () => {
  it('sends on every channel', async () => {
    const a = channel('slack');
    const b = channel('sns');
    const report = await deliver(ALERT, [a, b], { sleep: async () => {} });
    expect(report).toEqual({ delivered: ['slack', 'sns'], failed: [] });
    expect(a.notify).toHaveBeenCalledWith(ALERT);
  });

  it('retries transient failures with exponential backoff', async () => {
    const sleep = vi.fn(async (_ms: number) => {});
    const slack = channel('slack', [transient(), transient()]);
    const report = await deliver(ALERT, [slack], { attempts: 3, baseDelayMs: 200, sleep });
    expect(report).toEqual({ delivered: ['slack'], failed: [] });
    expect(slack.notify).toHaveBeenCalledTimes(3);
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([200, 400]);
  });

  it('gives up after the last attempt and reports the failure as transient', async () => {
    const sleep = vi.fn(async (_ms: number) => {});
    const slack = channel('slack', [
      transient('500 a'),
      transient('500 b'),
      transient('500 c'),
      transient('never'),
    ]);
    const report = await deliver(ALERT, [slack], { attempts: 3, sleep });
    expect(report).toEqual({
      delivered: [],
      failed: [{ channel: 'slack', error: '500 c', permanent: false }],
    });
    expect(slack.notify).toHaveBeenCalledTimes(3);
    expect(sleep).toHaveBeenCalledTimes(2);
  });

  it('does not retry a permanent failure', async () => {
    const sleep = vi.fn(async (_ms: number) => {});
    const slack = channel('slack', [permanent('slack: HTTP 404 no_service')]);
    const report = await deliver(ALERT, [slack], { sleep });
    expect(report.failed).toEqual([
      { channel: 'slack', error: 'slack: HTTP 404 no_service', permanent: true },
    ]);
    expect(slack.notify).toHaveBeenCalledTimes(1);
    expect(sleep).not.toHaveBeenCalled();
  });

  it('treats unexpected errors as transient', async () => {
    const sns = channel('sns', [new TypeError('bug'), 'a string']);
    const report = await deliver(ALERT, [sns], { sleep: async () => {} });
    expect(report.delivered).toEqual(['sns']);
    expect(sns.notify).toHaveBeenCalledTimes(3);
  });

  it('delivers on healthy channels while another one fails', async () => {
    const slack = channel('slack', [permanent()]);
    const sns = channel('sns', [transient()]);
    const events = channel('events');
    const report = await deliver(ALERT, [slack, sns, events], { sleep: async () => {} });
    expect(report.delivered.sort()).toEqual(['events', 'sns']);
    expect(report.failed).toEqual([{ channel: 'slack', error: 'gone', permanent: true }]);
  });

  it('does not hold other channels while one waits to retry', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slack = channel('slack', [transient()]);
    const events = channel('events');
    const pending = deliver(ALERT, [slack, events], { sleep: () => gate });
    await vi.waitFor(() => expect(events.notify).toHaveBeenCalledTimes(1));
    expect(slack.notify).toHaveBeenCalledTimes(1);
    release();
    expect((await pending).delivered.sort()).toEqual(['events', 'slack']);
  });

  it('never throws, even when a channel throws synchronously or sleep fails', async () => {
    const broken: Notifier = {
      channel: 'broken',
      notify: () => {
        throw new Error('sync');
      },
    };
    const report = await deliver(ALERT, [broken], {
      sleep: () => Promise.reject(new Error('no timers')),
    });
    expect(report.failed).toEqual([{ channel: 'broken', error: 'sync', permanent: false }]);
  });

  it('waits for real between tries by default', async () => {
    const slack = channel('slack', [transient()]);
    const started = performance.now();
    const report = await deliver(ALERT, [slack], { baseDelayMs: 20 });
    expect(report.delivered).toEqual(['slack']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(15);
  });

  it('reports nothing for no channels', async () => {
    expect(await deliver(ALERT, [])).toEqual({ delivered: [], failed: [] });
  });
});
