import type { OutboxEntry, Undelivered } from '../model/record.js';
import type { Silence } from './silence.js';

/** Silences (DynamoDB, own key space). The summary is written at most once, by a conditional write. */
export interface SilenceStore {
  /** Every silence still stored (active, and ended ones until their TTL), oldest first. */
  list(): Promise<Silence[]>;
  /** Marks the silence summarised and stores `entry` (its alert, leased), unless someone already did. */
  claimSummary(id: string, entry: OutboxEntry | null, now: number): Promise<boolean>;
  /** Takes a due summary entry for another round, if its lease is still the one read. */
  retakeSummary(id: string, entry: OutboxEntry, leaseRead: number): Promise<boolean>;
  /** Replaces (or, with null, clears) the summary entry after a round; records what gave up. */
  settleSummary(id: string, entry: OutboxEntry | null, gaveUp: readonly Undelivered[]): Promise<void>;
  /** Ends a silence now (a silence until resolved, once its run is healthy); false if it already ended. */
  endSilence?(id: string, by: string, now: number): Promise<boolean>;
}

/** A run whose Slack/SNS part waits for the end of the sweep, still leased by this sweep. */
export interface GroupMember {
  readonly runId: string;
  readonly alertId: string;
  /** The lease this sweep wrote: the claim holds only if nobody took the entry since. */
  readonly lease: number;
  /** The channels left on the run's entry once the group takes Slack and SNS (may be empty). */
  readonly rest: readonly string[];
}

/** Writes a grouped alert into the first member's outbox and strips the members, all or nothing. */
export interface GroupStore {
  claimGroup(leader: string, group: OutboxEntry, members: readonly GroupMember[]): Promise<boolean>;
}
