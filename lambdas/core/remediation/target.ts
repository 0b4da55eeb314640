import type { RunStore } from '../model/ports.js';
import type { RunRecord } from '../model/record.js';
import type { JobCommand } from '../model/slices/remediation.js';
import { parseMetadata } from '../protocol/parse.js';
import { checked } from '../protocol/ssmParams.js';
import { type EksPlace, type EksSettings, eksPlaceOf } from './eks/place.js';

/** Where and what to look at on the instance, from the run's latest metadata.json, every field validated. */
export interface RemediationTarget {
  readonly instanceId?: string;
  readonly jobName?: string;
  readonly profile?: string;
  readonly pidFile?: string;
  readonly processPattern?: string;
  readonly logPath?: string;
  readonly checkpointDir?: string;
  readonly job?: JobCommand;
  /** The run's job on EKS (metadata.json `platform`, checked against the configured clusters). */
  readonly eks?: EksPlace;
  /** Why a run that says it is on EKS cannot be acted on there. */
  readonly eksProblem?: string;
  /** Fields that were present but unsafe, each one line (shown in the alert). */
  readonly problems: readonly string[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v.trim() : undefined);

/**
 * Reads metadata.json again (the stored record keeps only some fields) and keeps what is safe to pass to
 * an SSM document. Heartbeat content is untrusted: anything of the wrong shape is dropped, never quoted.
 */
export async function readTarget(
  runs: RunStore,
  record: RunRecord,
  commands: Readonly<Record<string, JobCommand>>,
  eks?: EksSettings,
): Promise<RemediationTarget> {
  const problems: string[] = [];
  const bytes = await runs.read(record.runId, 'metadata').catch(() => undefined);
  const parsed = bytes ? parseMetadata(bytes) : undefined;
  const m: Record<string, unknown> = parsed?.ok ? parsed.value : {};
  if (parsed && !parsed.ok)
    problems.push(`metadata.json unreadable (${parsed.problem}); using what the sweep stored`);
  const meta = record.meta ?? {};
  const jobName = str(m.job_name) ?? meta.jobName;
  const job =
    (jobName !== undefined && Object.hasOwn(commands, jobName) ? commands[jobName] : undefined) ??
    commands['*'];
  const { place, problem } = eksPlaceOf(m.platform, eks);
  if (problem) problems.push(problem);
  return {
    ...(place && { eks: place }),
    ...(problem && { eksProblem: problem }),
    instanceId: checked('instanceId', 'instance_id', str(m.instance_id) ?? meta.instanceId, problems),
    jobName,
    profile: str(m.profile) ?? meta.profile,
    pidFile: checked('path', 'pid_file', str(m.pid_file), problems),
    processPattern:
      checked('processPattern', 'process_pattern', str(m.process_pattern), problems) ?? job?.processPattern,
    logPath: checked('path', 'log_path', str(m.log_path) ?? meta.logPath, problems),
    checkpointDir: checked('path', 'checkpoint_dir', str(m.checkpoint_dir) ?? meta.checkpointDir, problems),
    job,
    problems,
  };
}

/** The diagnosis document's parameters for a run (the same on every node of a multi-node run). */
export function diagnoseParameters(t: RemediationTarget, runId: string): Record<string, string> {
  return {
    RunId: runId,
    PidFile: t.pidFile ?? '',
    ProcessPattern: t.processPattern ?? '',
    CheckpointDir: t.checkpointDir ?? '',
    LogPath: t.logPath ?? '',
    TailLines: '40',
  };
}
