import type { RunRecord } from '../model/record.js';
import type { HangFamily } from '../model/slices/stacks.js';
import type { NodeFindings } from './culprit.js';
import { parseDiagnosis, summarize } from './diagnosis/index.js';
import type { Probe } from './policy/index.js';
import { stackOutliers } from './stackEvidence.js';
import { diagnoseParameters, type RemediationTarget } from './target.js';
import type { RemediationDeps } from './types.js';

/** What looking at the instance found: the probe's verdict, evidence for the classifier, and the SSM command. */
export interface Seen {
  readonly probe: Probe;
  /** Kernel and log lines from the instance, classified together with the run's own files. */
  readonly evidence: string;
  readonly commandId?: string;
  /** A multi-node run: every node's verdict and the culprit. */
  readonly nodes?: NodeFindings;
  /** The hang family the stacks show (the blocking call decides: core/stacks), where there are any. */
  readonly stackFamily?: HangFamily;
  /** The job's manifest (JSON) as read now, to keep on the run (a run on EKS). */
  readonly savedJob?: string;
}

/** Runs the diagnosis document on the run's instance; every way it can fail becomes a finding, never a throw of the run's fault. */
export async function probe(
  deps: Pick<RemediationDeps, 'commands' | 'settings'>,
  t: RemediationTarget,
  rec: RunRecord,
): Promise<Seen> {
  const runId = rec.runId;
  const none = (finding: string) => ({ probe: { ok: false, finding } as Probe, evidence: '' });
  if (!t.instanceId)
    return none('metadata.json names no valid instance_id, so the instance cannot be examined');
  if (!deps.settings.diagnoseDocument) return none('no diagnosis document is configured');
  const r = await deps.commands.run({
    instanceId: t.instanceId,
    document: deps.settings.diagnoseDocument,
    timeoutSeconds: deps.settings.diagnoseTimeoutSeconds ?? 150,
    comment: `trainwatch diagnose ${runId}`,
    parameters: diagnoseParameters(t, runId),
  });
  if (!r.ok) return none(r.finding ?? `diagnosis ${r.status}`);
  const d = parseDiagnosis(r.output);
  // The kernel's and the log's own words feed the classifier (an Xid or an OOM kill explains a crash).
  return {
    probe: { ok: true, summary: summarize(d) },
    evidence: [...d.xids.map((x) => x.line), ...d.kernelOomKills, ...d.logTail].join('\n'),
    commandId: r.commandId,
    stackFamily: stackOutliers(rec, new Map([[0, d]])).family,
  };
}
