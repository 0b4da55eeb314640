import { effectiveThresholds, type Thresholds } from '../detection/thresholds.js';
import type { RunFiles } from '../model/listing.js';
import type { RunRecord } from '../model/record.js';
import type { RunFileName } from '../protocol/files.js';
import { assess, stillFor } from './evaluate.js';

/**
 * Which bodies are worth a GET this sweep. Healthy runs need none: LastModified says they are alive.
 * We read a changed file when it is new to us, when a transition is in sight (its content shapes the
 * verdict and the alert), and progress.json at most every half stall threshold to track `step`.
 */
export function planReads(run: RunFiles, known: RunRecord, now: number, t: Thresholds): Set<RunFileName> {
  const f = run.files;
  const changed = (name: RunFileName) => f[name] !== undefined && f[name]!.etag !== known.facts.etags[name];
  const reads = new Set<RunFileName>();
  const want = (name: RunFileName) => changed(name) && reads.add(name);

  want('complete');
  if (want('error') && f.log) reads.add('log');

  const firstLook = known.version === 0;
  // A restarting run's new heartbeats must be read: their attempt number says which process wrote them.
  const restarting = known.state === 'RESTARTING';
  const candidate = assess(run, known, now, t).state !== known.state;
  // A finding (invalid file, clock skew) clears only when its file is read again; the verdict it causes
  // is no transition, so without this a degraded run would never recover.
  const degraded = known.facts.findings !== undefined;
  if (firstLook || restarting || candidate || degraded) {
    want('metadata');
    want('progress');
  }
  if (changed('progress')) {
    const eff = effectiveThresholds(t, known.meta, known.facts.cadence, known.attempt);
    const due =
      known.facts.progressCheckedAt === undefined ||
      now - known.facts.progressCheckedAt >= eff.stallAfterMs / 2;
    const stallSuspect =
      known.facts.stepAdvancedAt !== undefined && now - known.facts.stepAdvancedAt > eff.stallAfterMs;
    // Still past the learned threshold since its last write: the stall alert must say the step it stopped at.
    const still = stillFor(run, known, now);
    const stuck = eff.stuckAfterMs !== undefined && still !== undefined && still > eff.stuckAfterMs;
    if (due || stallSuspect || stuck) reads.add('progress');
  }
  return reads;
}
