import { healthOverrides } from '../health/overrides.js';
import { skew, tooBig, withFinding } from '../model/findings.js';
import type { RunFiles } from '../model/listing.js';
import { type KnownMetadata, type RunRecord, withFacts } from '../model/record.js';
import { NO_FACTS } from '../model/slices/attempt.js';
import type { HealthOverrides } from '../model/slices/health.js';
import { RunState } from '../model/states.js';
import type { RunFileName } from '../protocol/files.js';
import { decodeText, lastLine, parseComplete, parseMetadata, toEpochMs } from '../protocol/parse.js';
import { platformWhere } from '../protocol/platform.js';
import type { Metadata } from '../protocol/schemas.js';
import type { Classifier } from './deps.js';
import { observeProgress } from './observeProgress.js';

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
    facts: NO_FACTS,
  };
}

function knownMetadata(v: Metadata, health: HealthOverrides): KnownMetadata {
  return {
    phase: v.phase,
    status: v.status,
    instanceId: v.instance_id,
    where: platformWhere(v.platform),
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

/** Folds the bodies read this time into what we know about the run and its current attempt. Pure. */
export function observe(r: RunRecord, run: RunFiles, reads: Reads, now: number): RunRecord {
  let next: RunRecord = r;
  const etags = { ...r.facts.etags };
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
      let findings = withFinding(next.facts.findings, 'metadata.json', undefined);
      findings = withFinding(
        findings,
        'metadata.json:health',
        problems.length ? problems.join('; ') : undefined,
      );
      // Keyed per file: a read of one file must neither clear nor mask the other file's skew.
      const stamp = parsed.value.last_update;
      findings = withFinding(
        findings,
        'clock:metadata.json',
        skew('metadata.json', 'last_update', stamp, files.metadata.lastModified),
      );
      next = withFacts(next, { findings });
    } else if (parsed) {
      const problem = `invalid heartbeat: ${parsed.problem}`;
      next = withFacts(next, { findings: withFinding(next.facts.findings, 'metadata.json', problem) });
    }
  }

  if ('progress' in reads && files.progress) {
    etags.progress = files.progress.etag;
    next = observeProgress(next, files.progress, reads.progress, now);
  }

  if ('log' in reads && reads.log) next = withFacts(next, { lastLogLine: lastLine(decodeText(reads.log)) });

  if ('error' in reads && files.error) {
    etags.error = files.error.etag;
    const text = reads.error ? decodeText(reads.error) : '';
    next = withFacts(next, { errorMessage: lastLine(text) ?? '_error written (empty)' });
  }

  if ('complete' in reads && files.complete) {
    etags.complete = files.complete.etag;
    const summary = reads.complete ? parseComplete(reads.complete) : undefined;
    const step = typeof summary?.step === 'number' ? summary.step : undefined;
    if (step !== undefined && Number.isInteger(step)) next = withFacts(next, { step });
  }

  return withFacts(next, { etags });
}

/** The error type of an `_error` read this time, from its text and the log tail, by the run's profile. */
export async function classifyError(r: RunRecord, reads: Reads, classify: Classifier): Promise<RunRecord> {
  if (!('error' in reads)) return r;
  const text = reads.error ? decodeText(reads.error) : '';
  const log = reads.log ? decodeText(reads.log) : '';
  return { ...r, errorType: (await classify(`${text}\n${log}`, r.meta?.profile)).error_type };
}
