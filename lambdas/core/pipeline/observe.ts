import { healthOverrides } from '../health/overrides.js';
import { skew, tooBig, withFinding } from '../model/findings.js';
import type { RunFiles } from '../model/listing.js';
import type { KnownMetadata, RunRecord } from '../model/record.js';
import type { HealthOverrides } from '../model/slices/health.js';
import { RunState } from '../model/states.js';
import type { RunFileName } from '../protocol/files.js';
import {
  decodeText,
  lastLine,
  parseComplete,
  parseMetadata,
  parseProgress,
  toEpochMs,
} from '../protocol/parse.js';
import type { Metadata } from '../protocol/schemas.js';
import type { Classifier } from './deps.js';
import { attemptBoundary } from './evaluate.js';

/** Bodies read this time, by file; `undefined` means the object vanished between LIST and GET. */
export type Reads = Partial<Record<RunFileName, Uint8Array | undefined>>;

/** A fresh record for a run seen for the first time (version 0: not stored yet). */
export function newRecord(run: RunFiles, now: number): RunRecord {
  return {
    runId: run.runId,
    state: RunState.PENDING,
    reason: 'first seen',
    attempt: 1,
    version: 0,
    since: now,
    updatedAt: now,
    firstSeenAt: run.firstSeenAt,
    etags: {},
  };
}

function knownMetadata(v: Metadata, health: HealthOverrides): KnownMetadata {
  return {
    phase: v.phase,
    status: v.status,
    instanceId: v.instance_id,
    jobName: v.job_name,
    startedAt: toEpochMs(v.started_at),
    attempt: v.attempt,
    staleMinutes: v.stale_minutes,
    profile: v.profile,
    logPath: v.log_path,
    checkpointDir: v.checkpoint_dir,
    nodes: v.nodes,
    // on-call lifecycle: a run under planned maintenance pages nobody while the flag is set
    ...(v.maintenance === true ? { maintenance: true } : {}),
    ...(Object.keys(health).length ? { health } : {}),
  };
}

/** Folds the bodies read this time into what we know about the run. Pure. */
export function observe(r: RunRecord, run: RunFiles, reads: Reads, now: number): RunRecord {
  let next: RunRecord = r;
  const etags = { ...r.etags };
  const { files } = run;

  if ('metadata' in reads && files.metadata) {
    etags.metadata = files.metadata.etag;
    const parsed =
      tooBig('metadata.json', files.metadata.size) ??
      (reads.metadata ? parseMetadata(reads.metadata) : undefined);
    if (parsed?.ok) {
      const { overrides, problems } = healthOverrides(parsed.value);
      const meta = knownMetadata(parsed.value, overrides);
      // An old process's metadata never lowers the attempt a restart moved to.
      next = { ...next, meta, attempt: Math.max(meta.attempt ?? 0, next.attempt) };
      next = { ...next, findings: withFinding(next, 'metadata.json', undefined) };
      next = {
        ...next,
        findings: withFinding(
          next,
          'metadata.json:health',
          problems.length ? problems.join('; ') : undefined,
        ),
      };
      next = {
        ...next,
        // Keyed per file: a read of one file must neither clear nor mask the other file's skew.
        findings: withFinding(
          next,
          'clock:metadata.json',
          skew('metadata.json', 'last_update', parsed.value.last_update, files.metadata.lastModified),
        ),
      };
    } else if (parsed) {
      next = {
        ...next,
        findings: withFinding(next, 'metadata.json', `invalid heartbeat: ${parsed.problem}`),
      };
    }
  }

  if ('progress' in reads && files.progress) {
    etags.progress = files.progress.etag;
    const parsed =
      tooBig('progress.json', files.progress.size) ??
      (reads.progress ? parseProgress(reads.progress) : undefined);
    if (parsed?.ok) {
      const { step, total_steps, loss, learning_rate } = parsed.value;
      const at = files.progress.lastModified;
      // The first progress of a restarted attempt starts its own stall clock and rate, even at the same step.
      const boundary = attemptBoundary(next);
      const newAttempt = boundary !== undefined && at > boundary && (next.stepAdvancedAt ?? 0) <= boundary;
      const advanced = step !== next.step || newAttempt;
      // A step below the first one seen means a new attempt resumed from a checkpoint: restart the rate.
      const rebase = next.firstStep === undefined || step < next.firstStep || newAttempt;
      next = {
        ...next,
        step,
        totalSteps: total_steps ?? undefined,
        loss: typeof loss === 'number' && Number.isFinite(loss) ? loss : undefined,
        learningRate:
          typeof learning_rate === 'number' && Number.isFinite(learning_rate) ? learning_rate : undefined,
        stepAdvancedAt: advanced || next.stepAdvancedAt === undefined ? at : next.stepAdvancedAt,
        progressCheckedAt: now,
        firstStep: rebase ? step : next.firstStep,
        firstStepAt: rebase ? at : next.firstStepAt,
      };
      next = { ...next, findings: withFinding(next, 'progress.json', undefined) };
      next = {
        ...next,
        findings: withFinding(
          next,
          'clock:progress.json',
          skew('progress.json', 'last_updated', parsed.value.last_updated, at),
        ),
      };
    } else if (parsed) {
      next = {
        ...next,
        progressCheckedAt: now,
        findings: withFinding(next, 'progress.json', `invalid heartbeat: ${parsed.problem}`),
      };
    }
  }

  if ('log' in reads && reads.log) next = { ...next, lastLogLine: lastLine(decodeText(reads.log)) };

  if ('error' in reads && files.error) {
    etags.error = files.error.etag;
    const text = reads.error ? decodeText(reads.error) : '';
    next = { ...next, errorMessage: lastLine(text) ?? '_error written (empty)' };
  }

  if ('complete' in reads && files.complete) {
    etags.complete = files.complete.etag;
    const summary = reads.complete ? parseComplete(reads.complete) : undefined;
    const step = typeof summary?.step === 'number' ? summary.step : undefined;
    if (step !== undefined && Number.isInteger(step)) next = { ...next, step };
  }

  return { ...next, etags };
}

/** The error type of an `_error` read this time, from its text and the log tail, by the run's profile. */
export async function classifyError(r: RunRecord, reads: Reads, classify: Classifier): Promise<RunRecord> {
  if (!('error' in reads)) return r;
  const text = reads.error ? decodeText(reads.error) : '';
  const log = reads.log ? decodeText(reads.log) : '';
  return { ...r, errorType: (await classify(`${text}\n${log}`, r.meta?.profile)).error_type };
}
