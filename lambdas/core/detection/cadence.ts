import type { Cadence } from '../model/slices/cadence.js';
import type { NodeSummaries } from '../model/slices/nodes.js';

/** How many reads the learned p99 remembers (at the 5-minute telemetry period: the last half hour). */
export const CADENCE_READS = 6;
/** How long into an attempt node bodies are read every sweep until its cadence is known (then: the telemetry period). */
export const CADENCE_WARMUP_MS = 20 * 60_000;
/** Fewer gaps than this between progress() calls is no history yet: the fixed thresholds hold. */
export const MIN_CALLS = 20;

/**
 * Folds the pace figures of the node bodies read at `now` into the run's cadence. Nodes read at other
 * sweeps, or reporting no pace (an older client, or too few calls yet), add nothing; a new attempt starts
 * afresh. Pure; returns `prev` itself when nothing was learned, so an unchanged cadence writes nothing.
 */
export function learnCadence(
  prev: Cadence | undefined,
  nodes: NodeSummaries | undefined,
  attempt: number,
  now: number,
): Cadence | undefined {
  const kept = prev?.attempt === attempt ? prev : undefined;
  const read = Object.values(nodes ?? {}).filter(
    (n) => n.readAt === now && n.gapP99S !== undefined && n.gapS !== undefined && (n.calls ?? 0) >= MIN_CALLS,
  );
  if (read.length === 0) return kept === prev ? prev : kept;
  const every = read.map((n) => n.everyS).filter((s): s is number => s !== undefined && s > 0);
  return {
    attempt,
    p99s: [...(kept?.p99s ?? []), Math.max(...read.map((n) => n.gapP99S!))].slice(-CADENCE_READS),
    gapS: Math.max(...read.map((n) => n.gapS!)),
    calls: Math.min(...read.map((n) => n.calls!)),
    ...(every.length ? { everyS: Math.max(...every) } : {}),
  };
}

/** The run's usual longest gap between progress() calls: the largest p99 of its recent reads (jitter-robust). */
export const usualP99S = (c: Cadence): number => Math.max(...c.p99s);
