import { describe, expect, it } from 'vitest';
import { isDue, LEASE_MS, MAX_ROUNDS, openEntry, settle } from '../../../lambdas/core/alerting/outbox.js';
import type { Alert } from '../../../lambdas/core/model/alert.js';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const ALERT = { id: 'r1:4:transition', runId: 'r1', state: 'FAILED' } as Alert;
const transient = (channel: string) => ({ channel, error: `${channel} 503`, permanent: false });
const permanent = (channel: string) => ({ channel, error: `${channel} 404`, permanent: true });

describe('outbox', () => {
  it('opens an entry for every channel, leased by its writer', () => {
    expect(openEntry(ALERT, ['slack', 'sns'], NOW)).toEqual({
      alert: ALERT,
      pending: ['slack', 'sns'],
      attempts: 0,
      leaseUntil: NOW + LEASE_MS,
    });
  });

  it('an entry is due once its lease has expired and it has channels left', () => {
    const e = openEntry(ALERT, ['slack'], NOW);
    expect(isDue(e, NOW + LEASE_MS - 1)).toBe(false);
    expect(isDue(e, NOW + LEASE_MS)).toBe(true);
    expect(isDue({ ...e, pending: [] }, NOW + LEASE_MS)).toBe(false);
  });

  it('a fully delivered round closes the entry', () => {
    const e = openEntry(ALERT, ['slack', 'sns'], NOW);
    expect(settle(e, { delivered: ['slack', 'sns'], failed: [] }, NOW)).toEqual({ entry: null, gaveUp: [] });
  });

  it('a transient failure keeps only that channel, with a lease that doubles each round', () => {
    let e = openEntry(ALERT, ['slack', 'sns'], NOW);
    const first = settle(e, { delivered: ['sns'], failed: [transient('slack')] }, NOW);
    expect(first.gaveUp).toEqual([]);
    expect(first.entry).toEqual({
      alert: ALERT,
      pending: ['slack'],
      attempts: 1,
      leaseUntil: NOW + LEASE_MS,
      lastError: 'slack: slack 503',
    });
    e = first.entry!;
    const second = settle(e, { delivered: [], failed: [transient('slack')] }, NOW + LEASE_MS);
    expect(second.entry).toMatchObject({ attempts: 2, leaseUntil: NOW + LEASE_MS + 2 * LEASE_MS });
  });

  it('a permanent failure gives up at once and is recorded, not dropped', () => {
    const e = openEntry(ALERT, ['slack', 'sns'], NOW);
    const r = settle(e, { delivered: [], failed: [permanent('slack'), transient('sns')] }, NOW);
    expect(r.gaveUp).toEqual([{ alertId: ALERT.id, channel: 'slack', error: 'slack 404', at: NOW }]);
    expect(r.entry?.pending).toEqual(['sns']);
  });

  it(`a channel still failing in round ${MAX_ROUNDS} gives up`, () => {
    const e = { ...openEntry(ALERT, ['slack'], NOW), attempts: MAX_ROUNDS - 2 };
    const almost = settle(e, { delivered: [], failed: [transient('slack')] }, NOW);
    expect(almost.entry?.attempts).toBe(MAX_ROUNDS - 1);
    expect(almost.gaveUp).toEqual([]);
    const last = settle(almost.entry!, { delivered: [], failed: [transient('slack')] }, NOW);
    expect(last.entry).toBeNull();
    expect(last.gaveUp).toEqual([{ alertId: ALERT.id, channel: 'slack', error: 'slack 503', at: NOW }]);
  });
});
