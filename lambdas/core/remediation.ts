import type { Alert } from './alert.js';
import { buildAlert, type Links } from './alerts.js';
import { classifyDetailed, type Profile } from './classify/index.js';
import { type DeliverOptions, deliver } from './deliver.js';
import { parseDiagnosis, summarize } from './diagnosis/index.js';
import { type Decision, decide, type Probe, type RestartPolicy } from './policy/index.js';
import type { AttemptArchive, CommandRunner, Notifier, RunStore, StateStore } from './ports.js';
import { MAX_TEXT_BYTES } from './protocol/files.js';
import { decodeText } from './protocol/parse.js';
import type { RunRecord } from './record.js';
import { remediationDetails } from './remediationDetails.js';
import { HISTORY_KEPT, type JobCommand, type RemediationState } from './remediationState.js';
import { type RemediationTarget, readTarget } from './remediationTarget.js';
import { RunState } from './states.js';

/** What remediation needs from configuration. */
export interface RemediationSettings {
  readonly diagnoseDocument?: string;
  readonly restartDocument?: string;
  readonly policy: RestartPolicy;
  readonly profile: Profile | string;
  readonly commands: Readonly<Record<string, JobCommand>>;
  /** @default 150 */
  readonly diagnoseTimeoutSeconds?: number;
  /** @default 90 */
  readonly restartTimeoutSeconds?: number;
}

/** Ports and settings, wired once per cold start. `owner` names this worker in the per-run lock. */
export interface RemediationDeps {
  readonly runs: RunStore;
  readonly states: StateStore;
  readonly commands: CommandRunner;
  readonly archive: AttemptArchive;
  readonly notifiers: readonly Notifier[];
  readonly links: Links;
  readonly settings: RemediationSettings;
  readonly owner: string;
  readonly deliverOptions?: DeliverOptions;
}

/** A transition worth remediating (from the EventBridge event's Alert detail). */
export interface RemediationRequest {
  readonly runId: string;
  readonly state: RunState;
  readonly alertId?: string;
}

/** What remediation did for one run. */
export interface RemediationOutcome {
  readonly runId: string;
  readonly skipped?: string;
  readonly errorType?: string | null;
  readonly decision?: Decision;
  readonly diagnosis?: readonly string[];
  readonly alert?: Alert;
  readonly delivered?: number;
  readonly failed?: number;
}

const LOCK = 'remediation';
const LOCK_MS = 10 * 60_000;

/** Diagnoses a failed, stalled or timed-out run, decides by policy, restarts if safe, and alerts. Never throws for a run's fault. */
export async function remediate(
  deps: RemediationDeps,
  req: RemediationRequest,
  now: number,
): Promise<RemediationOutcome> {
  const skip = (why: string): RemediationOutcome => ({ runId: req.runId, skipped: why });
  const rec = await deps.states.get(req.runId);
  if (!rec) return skip('no such run');
  if (rec.state !== req.state) return skip(`the run is ${rec.state} now, not ${req.state}`);
  if (req.alertId && rec.remediation?.handled === req.alertId)
    return skip('this transition was already handled');
  if (!(await deps.states.acquireLock(req.runId, LOCK, deps.owner, now + LOCK_MS, now)))
    return skip('another remediation holds the lock');
  try {
    return await locked(deps, rec, req, now);
  } finally {
    await deps.states.releaseLock(req.runId, LOCK, deps.owner).catch(() => undefined);
  }
}

async function readText(deps: RemediationDeps, runId: string, file: 'error' | 'log'): Promise<string> {
  const bytes = await deps.runs.read(runId, file, MAX_TEXT_BYTES).catch(() => undefined);
  return bytes ? decodeText(bytes) : '';
}

async function probe(
  deps: RemediationDeps,
  t: RemediationTarget,
  runId: string,
): Promise<{ probe: Probe; evidence: string; commandId?: string }> {
  const none = (finding: string) => ({ probe: { ok: false, finding } as Probe, evidence: '' });
  if (!t.instanceId)
    return none('metadata.json names no valid instance_id, so the instance cannot be examined');
  if (!deps.settings.diagnoseDocument) return none('no diagnosis document is configured');
  const r = await deps.commands.run({
    instanceId: t.instanceId,
    document: deps.settings.diagnoseDocument,
    timeoutSeconds: deps.settings.diagnoseTimeoutSeconds ?? 150,
    comment: `trainwatch diagnose ${runId}`,
    parameters: {
      RunId: runId,
      PidFile: t.pidFile ?? '',
      ProcessPattern: t.processPattern ?? '',
      CheckpointDir: t.checkpointDir ?? '',
      LogPath: t.logPath ?? '',
      TailLines: '40',
    },
  });
  if (!r.ok) return none(r.finding ?? `diagnosis ${r.status}`);
  const d = parseDiagnosis(r.output);
  // The kernel's and the log's own words feed the classifier (an Xid or an OOM kill explains a crash).
  return {
    probe: { ok: true, summary: summarize(d) },
    evidence: [...d.xids.map((x) => x.line), ...d.kernelOomKills, ...d.logTail].join('\n'),
    commandId: r.commandId,
  };
}

/** Highest step of the attempt now ending, counting only progress made after that attempt started. */
function bestSteps(rec: RunRecord, attempt: number): Record<string, number> {
  const rem = rec.remediation;
  const steps = { ...(rem?.bestSteps ?? {}) };
  const started = rem?.attemptStartedAt;
  const own = rec.step !== undefined && (started === undefined || (rec.stepAdvancedAt ?? 0) > started);
  const key = String(attempt);
  if (own) steps[key] = Math.max(steps[key] ?? Number.NEGATIVE_INFINITY, rec.step!);
  return steps;
}

async function locked(
  deps: RemediationDeps,
  rec: RunRecord,
  req: RemediationRequest,
  now: number,
): Promise<RemediationOutcome> {
  const { settings } = deps;
  const target = await readTarget(deps.runs, rec, settings.commands);
  const [errorText, logText, seen] = await Promise.all([
    rec.state === RunState.FAILED ? readText(deps, rec.runId, 'error') : Promise.resolve(''),
    readText(deps, rec.runId, 'log'),
    probe(deps, target, rec.runId),
  ]);
  const c = classifyDetailed(
    [errorText, logText, seen.evidence].join('\n'),
    target.profile ?? settings.profile,
  );
  const errorType = c.error_type ?? rec.errorType ?? null;
  const restarts = rec.remediation?.restarts ?? 0;
  // metadata.json sets `attempt`, but a job that does not know it was restarted keeps writing 1: trust our count too.
  const attempt = Math.max(rec.attempt, restarts + 1);
  const steps = bestSteps(rec, attempt);
  let decision = decide({
    state: rec.state,
    errorType,
    attempt,
    restarts,
    bestSteps: Object.fromEntries(Object.entries(steps).map(([k, v]) => [Number(k), v])),
    probe: seen.probe,
    policy: settings.policy,
  });
  if (decision.action === 'restart' && !target.job)
    decision = {
      ...decision,
      action: 'alert',
      reason: `not restarting: no restart command is configured for job ${target.jobName ?? '(unnamed)'} (TRAINWATCH_RESTART_COMMANDS)`,
    };
  if (decision.action === 'restart' && !settings.restartDocument)
    decision = { ...decision, action: 'alert', reason: 'not restarting: no restart document is configured' };

  let written: RunRecord | undefined;
  if (decision.action === 'restart') {
    const r = await restart(deps, rec, target, decision, errorType, steps, req, now);
    decision = r.decision;
    written = r.record;
  }
  const remediation = (base: RunRecord, extra: Partial<RemediationState> = {}): RemediationState => ({
    restarts: base.remediation?.restarts ?? 0,
    bestSteps: steps,
    attemptStartedAt: base.remediation?.attemptStartedAt,
    handled: req.alertId ?? base.remediation?.handled,
    diagnosis: seen.probe.ok
      ? { at: now, lines: seen.probe.summary.lines, commandId: seen.commandId }
      : base.remediation?.diagnosis,
    history: [
      ...(base.remediation?.history ?? []),
      {
        at: now,
        attempt: base.attempt,
        state: base.state,
        errorType,
        action: decision.action,
        reason: decision.reason,
      },
    ].slice(-HISTORY_KEPT),
    ...extra,
  });
  if (!written) {
    // No state change: record the decision and the diagnosis on the run (bookkeeping, same state).
    for (let i = 0; i < 3 && !written; i++) {
      const fresh = await deps.states.get(rec.runId);
      if (!fresh) break;
      const next: RunRecord = {
        ...fresh,
        errorType: fresh.state === RunState.FAILED ? errorType : fresh.errorType,
        remediation: remediation(fresh),
        version: fresh.version + 1,
        updatedAt: now,
      };
      if (await deps.states.update(next, fresh.version)) written = next;
    }
  }
  const forAlert = written ?? { ...rec, errorType, remediation: remediation(rec) };
  const alert = buildAlert(forAlert, {
    kind: 'remediation',
    previousState: decision.action === 'restart' ? rec.state : undefined,
    now,
    links: deps.links,
    details: remediationDetails(
      c.error_type ? c : { ...c, error_type: errorType },
      seen.probe,
      decision,
      target.problems,
    ),
  });
  const report = await deliver(alert, deps.notifiers, deps.deliverOptions);
  return {
    runId: rec.runId,
    errorType,
    decision,
    diagnosis: seen.probe.ok ? seen.probe.summary.lines : [seen.probe.finding],
    alert,
    delivered: report.delivered.length,
    failed: report.failed.length,
  };
}

/** Runs the restart document, then moves the run to RESTARTING with the next attempt (conditional write). */
async function restart(
  deps: RemediationDeps,
  rec: RunRecord,
  t: RemediationTarget,
  d: Decision,
  errorType: string | null,
  steps: Record<string, number>,
  req: RemediationRequest,
  now: number,
): Promise<{ decision: Decision; record?: RunRecord }> {
  const alert = (reason: string): { decision: Decision } => ({
    decision: { ...d, action: 'alert', reason: `not restarted: ${reason}` },
  });
  // The diagnosis took a while: a run that recovered meanwhile must not be restarted.
  const before = await deps.states.get(rec.runId);
  if (!before || before.state !== rec.state)
    return alert(`the run became ${before?.state ?? 'unknown'} while it was being diagnosed`);
  const delaySeconds = Math.round((d.delayMs ?? 0) / 1000);
  const r = await deps.commands.run({
    instanceId: t.instanceId!,
    document: deps.settings.restartDocument!,
    timeoutSeconds: deps.settings.restartTimeoutSeconds ?? 90,
    comment: `trainwatch restart ${rec.runId} attempt ${d.nextAttempt}`,
    parameters: {
      RunId: rec.runId,
      Attempt: String(d.nextAttempt),
      Command: t.job!.command,
      CheckpointDir: t.checkpointDir ?? '',
      PidFile: t.pidFile ?? '',
      ProcessPattern: t.processPattern ?? '',
      DelaySeconds: String(delaySeconds),
      RunAsUser: t.job!.user ?? '',
      StopTimeoutSeconds: '60',
    },
  });
  if (!r.ok) {
    const refused = /^restart\.refused=(.*)$/m.exec(r.output)?.[1];
    return alert(refused ? `the instance refused: ${refused}` : (r.finding ?? `restart command ${r.status}`));
  }
  const startsAt = now + delaySeconds * 1000;
  let fresh: RunRecord | undefined = before;
  for (let i = 0; i < 3 && fresh; i++) {
    if (i > 0) fresh = await deps.states.get(rec.runId);
    if (!fresh) break;
    const rem: RemediationState = {
      restarts: (fresh.remediation?.restarts ?? 0) + 1,
      bestSteps: steps,
      attemptStartedAt: startsAt,
      handled: req.alertId ?? fresh.remediation?.handled,
      diagnosis: fresh.remediation?.diagnosis,
      history: fresh.remediation?.history ?? [],
    };
    const next: RunRecord = {
      ...fresh,
      state: RunState.RESTARTING,
      reason: d.reason,
      errorType,
      attempt: d.nextAttempt!,
      restartIssuedAt: startsAt,
      since: now,
      updatedAt: now,
      version: fresh.version + 1,
      remediation: rem,
    };
    const flip = {
      runId: rec.runId,
      from: fresh.state,
      to: RunState.RESTARTING,
      reason: d.reason,
      at: now,
      attempt: next.attempt,
      version: next.version,
      errorType,
    };
    if (await deps.states.transition(next, flip, fresh.version)) {
      // After the state write, so a sweep in between still sees the failure; RESTARTING ignores older `_error`s anyway.
      if (rec.state === RunState.FAILED)
        await deps.archive.archive(rec.runId, d.nextAttempt! - 1, ['error']).catch(() => undefined);
      return { decision: d, record: next };
    }
  }
  return {
    decision: {
      ...d,
      reason: `${d.reason} (launched, but the state write kept losing to other writers: the next sweep will see the new attempt)`,
    },
  };
}
