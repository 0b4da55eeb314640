// Reading one run's bodies for its check: the files the plan asks, node bodies a few at a time, and the stacks
// of a stuck run. Oversized bodies are judged from their LIST size, never downloaded.

import { mapLimit } from '../base/mapLimit.js';
import { effectiveThresholds, type Thresholds } from '../detection/thresholds.js';
import type { RunFiles } from '../model/listing.js';
import type { RunStore } from '../model/ports.js';
import { type RunRecord, withFacts } from '../model/record.js';
import { type NodeReads, ofAttempt } from '../nodes/observe.js';
import { MAX_JSON_BYTES, MAX_TEXT_BYTES, type RunFileName } from '../protocol/files.js';
import { observeStacks, planStackReads } from '../stacks/observe.js';
import { attemptBoundary, stillFor } from './evaluate.js';
import type { Reads } from './observe.js';

export async function readFiles(runs: RunStore, run: RunFiles, plan: Set<RunFileName>): Promise<Reads> {
  const reads: Reads = {};
  await Promise.all(
    [...plan].map(async (name) => {
      const size = run.files[name]?.size ?? 0;
      // _complete is read whole too (no tail): an oversized one must not take the sweep's memory down.
      if (name !== 'error' && name !== 'log' && size > MAX_JSON_BYTES) reads[name] = undefined;
      else
        reads[name] = await runs.read(
          run.runId,
          name,
          name === 'error' || name === 'log' ? MAX_TEXT_BYTES : undefined,
        );
    }),
  );
  return reads;
}

/**
 * Node bodies, a few at a time (a 256-node run's first look must not open 256 sockets at once). An
 * oversized one is judged from its LIST size (parseNodeReads says so) and never downloaded.
 */
export async function readNodes(runs: RunStore, run: RunFiles, ranks: readonly number[]): Promise<NodeReads> {
  const size = new Map((run.nodes ?? []).map((n) => [n.rank, n.size]));
  const out = new Map<number, Uint8Array | undefined>();
  await mapLimit(ranks, 16, async (rank) => {
    out.set(rank, (size.get(rank) ?? 0) > MAX_JSON_BYTES ? undefined : await runs.readNode(run.runId, rank));
  });
  return out;
}

/**
 * v1.2: the stacks of a stuck run (its step still past a stall threshold, or an `_error` written)
 * are read where their ETag is new and judged (the odd node out); they are forgotten once the client deleted
 * them (its thread moved on) or the attempt changed. Returns `known` itself when nothing changed.
 */
export async function withStacks(
  runs: RunStore,
  thresholds: Thresholds,
  run: RunFiles,
  known: RunRecord,
  now: number,
): Promise<RunRecord> {
  const boundary = attemptBoundary(known);
  if (ofAttempt(run.stacks, boundary).length === 0)
    return known.facts.stacks ? withFacts(known, { stacks: undefined }) : known;
  const eff = effectiveThresholds(thresholds, known.meta, known.facts.cadence, known.attempt);
  const still = stillFor(run, known, now);
  const stuck =
    (still !== undefined && still > (eff.stuckAfterMs ?? eff.stallAfterMs)) ||
    ofAttempt(run.files.error ? [run.files.error] : [], boundary).length > 0;
  if (!stuck) return known.facts.stacks ? withFacts(known, { stacks: undefined }) : known;
  const reads = new Map<number, Uint8Array | undefined>();
  await mapLimit(planStackReads(run, known, boundary), 16, async (rank) => {
    reads.set(rank, await runs.readStack(run.runId, rank));
  });
  return observeStacks(known, run, reads, boundary, now);
}
