import type { Alert } from '../model/alert.js';
import type { OutboxEntry, Undelivered } from '../model/record.js';

/** The sender holds an entry this long; after it, the next sweep may retry what is still pending. */
export const LEASE_MS = 2 * 60_000;
/** Delivery rounds per alert (each round retries transient errors itself) before a channel gives up. */
export const MAX_ROUNDS = 5;

/** What one delivery round did (the shape `deliver()` returns). */
export interface RoundResult {
  readonly delivered: readonly string[];
  readonly failed: readonly { channel: string; error: string; permanent: boolean }[];
}

/** A new entry, leased by its writer, for every channel. */
export function openEntry(alert: Alert, channels: readonly string[], now: number): OutboxEntry {
  return { alert, pending: [...channels], attempts: 0, leaseUntil: now + LEASE_MS };
}

/** Whether a left-over entry may be taken for another round now. */
export function isDue(entry: OutboxEntry, now: number): boolean {
  return entry.pending.length > 0 && entry.leaseUntil <= now;
}

/**
 * The entry after a round: delivered channels leave it; a permanent failure, or a transient one in the
 * last round, gives up (recorded on the run, never dropped silently); the rest wait with backoff.
 */
export function settle(
  entry: OutboxEntry,
  round: RoundResult,
  now: number,
): { entry: OutboxEntry | null; gaveUp: Undelivered[] } {
  const attempts = entry.attempts + 1;
  const gaveUp: Undelivered[] = [];
  const pending: string[] = [];
  let lastError: string | undefined;
  for (const f of round.failed) {
    if (f.permanent || attempts >= MAX_ROUNDS)
      gaveUp.push({ alertId: entry.alert.id, channel: f.channel, error: f.error, at: now });
    else {
      pending.push(f.channel);
      lastError = `${f.channel}: ${f.error}`;
    }
  }
  if (pending.length === 0) return { entry: null, gaveUp };
  return {
    entry: { ...entry, pending, attempts, lastError, leaseUntil: now + LEASE_MS * 2 ** (attempts - 1) },
    gaveUp,
  };
}
