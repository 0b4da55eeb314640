// The progress observer: what one read of progress.json tells of the current attempt (its ProgressFacts).
// A heartbeat field shown in alerts is parsed by protocol/schemas.ts and lands here.

import { skew, tooBig, withFinding } from '../model/findings.js';
import type { ObjectInfo } from '../model/listing.js';
import { type RunRecord, withFacts } from '../model/record.js';
import { parseProgress } from '../protocol/parse.js';
import { attemptBoundary } from './evaluate.js';

const finite = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Folds one read of progress.json (`body` undefined: vanished or oversized) into the attempt's facts. Pure. */
export function observeProgress(
  r: RunRecord,
  file: ObjectInfo,
  body: Uint8Array | undefined,
  now: number,
): RunRecord {
  const parsed = tooBig('progress.json', file.size) ?? (body ? parseProgress(body) : undefined);
  if (!parsed) return r;
  const f = r.facts;
  if (!parsed.ok)
    return withFacts(r, {
      progressCheckedAt: now,
      findings: withFinding(f.findings, 'progress.json', `invalid heartbeat: ${parsed.problem}`),
    });
  const { step, total_steps, loss, learning_rate, last_updated } = parsed.value;
  const at = file.lastModified;
  // The first progress of a restarted attempt starts its own stall clock and rate, even at the same step.
  const boundary = attemptBoundary(r);
  const newAttempt = boundary !== undefined && at > boundary && (f.stepAdvancedAt ?? 0) <= boundary;
  const advanced = step !== f.step || newAttempt;
  // A step below the first one seen means a new attempt resumed from a checkpoint: restart the rate.
  const rebase = f.firstStep === undefined || step < f.firstStep || newAttempt;
  const findings = withFinding(f.findings, 'progress.json', undefined);
  return withFacts(r, {
    step,
    totalSteps: total_steps ?? undefined,
    loss: finite(loss),
    learningRate: finite(learning_rate),
    stepAdvancedAt: advanced || f.stepAdvancedAt === undefined ? at : f.stepAdvancedAt,
    progressCheckedAt: now,
    firstStep: rebase ? step : f.firstStep,
    firstStepAt: rebase ? at : f.firstStepAt,
    findings: withFinding(
      findings,
      'clock:progress.json',
      skew('progress.json', 'last_updated', last_updated, at),
    ),
  });
}
