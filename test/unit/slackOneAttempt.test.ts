// The Lambda bundles alias `p-retry` to lambdas/adapters/channels/slack/slackOneAttempt.ts (lib/functions.ts). With the
// Slack client's `retries: 0`, both must do the same: one attempt, a 4xx's AbortError unwrapped.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import oneAttempt, { AbortError } from '../../lambdas/adapters/channels/slack/slackOneAttempt.js';

const pRetry = createRequire(import.meta.url)('p-retry') as {
  (input: (n: number) => Promise<unknown>, options: { retries: number }): Promise<unknown>;
  AbortError: new (e: Error | string) => Error;
};

const outcome = (p: Promise<unknown>) =>
  p.then(
    (v) => ({ ok: v }),
    (e: Error) => ({ err: e.message, name: e.name }),
  );

describe('one attempt in place of p-retry with retries: 0', () => {
  it.each([
    ['a result', async () => 'sent'],
    ['a 5xx (retryable, but no retries)', async () => Promise.reject(new Error('HTTP 503'))],
  ])('%s: the same outcome as p-retry, after exactly one call', async (_, make) => {
    let ours = 0;
    let theirs = 0;
    const a = await outcome(oneAttempt(() => (ours++, make())));
    const b = await outcome(pRetry(() => (theirs++, make()), { retries: 0 }));
    expect(a).toEqual(b);
    expect([ours, theirs]).toEqual([1, 1]);
  });

  it('a 4xx wrapped in AbortError rejects with the error it wraps, as p-retry does', async () => {
    const cause = new Error('HTTP 404 no_service');
    const a = await outcome(oneAttempt(async () => Promise.reject(new AbortError(cause))));
    const b = await outcome(pRetry(async () => Promise.reject(new pRetry.AbortError(cause)), { retries: 0 }));
    expect(a).toEqual({ err: 'HTTP 404 no_service', name: 'Error' });
    expect(a).toEqual(b);
  });
});
