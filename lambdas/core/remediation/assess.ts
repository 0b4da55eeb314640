import type { DetailedClassification } from '../classify/index.js';
import type { RunRecord } from '../model/record.js';
import { RunState } from '../model/states.js';
import { MAX_TEXT_BYTES } from '../protocol/files.js';
import { decodeText } from '../protocol/parse.js';
import type { Platform } from './platform.js';
import { platformFor } from './platforms.js';
import type { Seen } from './probe.js';
import { type RemediationTarget, readTarget } from './target.js';
import type { RemediationDeps } from './types.js';

/** Everything a remediation decision rests on, gathered once per handled transition. */
export interface Assessment {
  readonly target: RemediationTarget;
  /** Where the run lives and how it is looked at and restarted there. */
  readonly platform: Platform;
  readonly seen: Seen;
  readonly classification: DetailedClassification;
  /** The classified type, else the one the sweep stored, else null. */
  readonly errorType: string | null;
  /** The attempt now ending. */
  readonly attempt: number;
  readonly restarts: number;
  /** Best step per attempt ("1", "2", …), this attempt's own progress included. */
  readonly steps: Record<string, number>;
}

async function readText(deps: RemediationDeps, runId: string, file: 'error' | 'log'): Promise<string> {
  const bytes = await deps.runs.read(runId, file, MAX_TEXT_BYTES).catch(() => undefined);
  return bytes ? decodeText(bytes) : '';
}

/** Highest step of the attempt now ending, counting only progress made after that attempt started. */
export function bestSteps(rec: RunRecord, attempt: number): Record<string, number> {
  const rem = rec.remediation;
  const steps = { ...(rem?.bestSteps ?? {}) };
  const started = rem?.attemptStartedAt;
  const own =
    rec.facts.step !== undefined && (started === undefined || (rec.facts.stepAdvancedAt ?? 0) > started);
  const key = String(attempt);
  if (own) steps[key] = Math.max(steps[key] ?? Number.NEGATIVE_INFINITY, rec.facts.step!);
  return steps;
}

/** The log's word for a hang: where the stacks show the blocking call, they decide the family instead. */
const HANG_TYPES = new Set(['hang', 'deadlock', 'distributed_timeout', 'nccl_timeout', 'watchdog_timeout']);

/** A stalled run's type from its stacks (a lock: deadlock; a collective: distributed timeout; else hang). */
function stallType(rec: RunRecord, logType: string | null, seen: Seen): string | undefined {
  if (rec.state !== RunState.STALLED || !seen.stackFamily) return undefined;
  return logType === null || HANG_TYPES.has(logType) ? seen.stackFamily : undefined;
}

/** Reads the run's target and files, probes it where it runs and classifies all of it together. */
export async function assess(deps: RemediationDeps, rec: RunRecord, now: number): Promise<Assessment> {
  const { settings } = deps;
  const target = await readTarget(deps.runs, rec, settings.commands, settings.eks);
  const platform = await platformFor(deps, target);
  const [errorText, logText, seen] = await Promise.all([
    rec.state === RunState.FAILED ? readText(deps, rec.runId, 'error') : Promise.resolve(''),
    readText(deps, rec.runId, 'log'),
    platform.probe(target, rec, now),
  ]);
  const classification = await deps.classify(
    [errorText, logText, seen.evidence].join('\n'),
    target.profile ?? settings.profile,
  );
  const restarts = rec.remediation?.restarts ?? 0;
  // metadata.json sets `attempt`, but a job that does not know it was restarted keeps writing 1: trust our count too.
  const attempt = Math.max(rec.attempt, restarts + 1);
  return {
    target,
    platform,
    seen,
    classification,
    errorType:
      stallType(rec, classification.error_type, seen) ?? classification.error_type ?? rec.errorType ?? null,
    attempt,
    restarts,
    steps: bestSteps(rec, attempt),
  };
}
