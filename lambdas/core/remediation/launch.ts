import { formatDuration } from '../base/duration.js';
import { mapLimit } from '../base/mapLimit.js';
import type { CommandResult } from '../model/ports.js';
import type { RunRecord } from '../model/record.js';
import type { NodeFindings } from './culprit.js';
import type { Decision } from './policy/index.js';
import { type NodeRestart, planNodeRestart } from './restartPlan.js';
import type { RemediationTarget } from './target.js';
import type { RemediationDeps } from './types.js';

/** What the restart document did: launched (and from what), or why not, in words for the alert. */
export type Launch =
  | {
      readonly ok: true;
      readonly resumed: string;
      /** How long after the launch the next attempt starts (the policy's backoff); absent: as the decision said. */
      readonly delayMs?: number;
    }
  | { readonly ok: false; readonly reason: string };

const field = (output: string, key: string) => new RegExp(`^restart\\.${key}=(.*)$`, 'm').exec(output)?.[1];

/** What a launched attempt resumes from, as the instance reported it (never assumed). */
export function resumedFrom(output: string): string {
  const from = field(output, 'resume_from');
  const step = field(output, 'resume_step');
  if (from) return `resumed from ${from}${step ? ` (step ${step})` : ''}`;
  const scratch = field(output, 'from_scratch');
  if (scratch !== undefined)
    return `started from scratch: no checkpoint under ${scratch} (resume: allow_scratch)`;
  return 'the instance did not report what it resumed from';
}

/** Why an instance refused, in words: a missing checkpoint names what would be lost. */
function refusal(r: CommandResult, rec: RunRecord, now: number): string {
  const where = field(r.output, 'no_checkpoint');
  if (where !== undefined) {
    const trained = formatDuration(now - (rec.meta?.startedAt ?? rec.firstSeenAt));
    return `no checkpoint under ${where}: not restarting from step 0 after ${trained} of training (resume: require; set resume: allow_scratch to start over)`;
  }
  const refused = field(r.output, 'refused');
  return refused ? `the instance refused: ${refused}` : (r.finding ?? `restart command ${r.status}`);
}

/**
 * Runs the restart document: once on the run's instance, or for a multi-node run on every node's
 * instance (`target: all`, each with its rank, the node count and node 0 as master) or on node 0 only
 * (`target: head`, naming the culprit's host for the scheduler to avoid). A broken GPU refuses `all`.
 */
export async function launch(
  deps: RemediationDeps,
  rec: RunRecord,
  t: RemediationTarget,
  d: Decision,
  nodes: NodeFindings | undefined,
  now: number,
): Promise<Launch> {
  const job = t.job!;
  let restarts: readonly NodeRestart[] = [{ rank: 0, instanceId: t.instanceId!, nodeRank: 0, nnodes: 1 }];
  let note: string | undefined;
  if (nodes) {
    const nnodes = Math.max(
      rec.meta?.nodes ?? rec.facts.nodesExpected ?? 0,
      Object.keys(rec.facts.nodes ?? {}).length,
    );
    const plan = planNodeRestart({
      target: job.target ?? 'all',
      nodes: rec.facts.nodes ?? {},
      nnodes,
      culprit: nodes.culprit,
    });
    if (!plan.ok) return { ok: false, reason: plan.refused };
    restarts = plan.restarts;
    note = plan.note;
  }
  const results = await mapLimit(restarts, 16, (n) =>
    deps.commands.run({
      instanceId: n.instanceId,
      document: deps.settings.restartDocument!,
      timeoutSeconds: deps.settings.restartTimeoutSeconds ?? 90,
      comment: `trainwatch restart ${rec.runId} attempt ${d.nextAttempt}${nodes ? ` node ${n.nodeRank}` : ''}`,
      parameters: {
        RunId: rec.runId,
        Attempt: String(d.nextAttempt),
        Command: job.command,
        CheckpointDir: t.checkpointDir ?? '',
        PidFile: t.pidFile ?? '',
        ProcessPattern: t.processPattern ?? '',
        DelaySeconds: String(Math.round((d.delayMs ?? 0) / 1000)),
        RunAsUser: job.user ?? '',
        StopTimeoutSeconds: '60',
        Resume: job.resume ?? 'require',
        NodeRank: String(n.nodeRank),
        NNodes: String(n.nnodes),
        MasterAddr: n.masterAddr ?? '',
        ExcludeHosts: (n.excludeHosts ?? []).join(','),
      },
    }),
  );
  const failed = results.map((r, i) => ({ r, n: restarts[i]! })).filter(({ r }) => !r.ok);
  if (failed.length > 0) {
    const first = refusal(failed[0]!.r, rec, now);
    if (!nodes) return { ok: false, reason: first };
    const launched = restarts.length - failed.length;
    return {
      ok: false,
      reason: `node ${failed[0]!.n.nodeRank}: ${first}${failed.length > 1 ? ` (and ${failed.length - 1} more nodes failed)` : ''}${launched ? `; ${launched} node${launched === 1 ? '' : 's'} launched anyway: stop them or restart by hand` : ''}`,
    };
  }
  const resumed = resumedFrom(results[0]!.output);
  const where = nodes
    ? ` on ${restarts.length === 1 ? 'node 0 (head)' : `all ${restarts.length} nodes`}`
    : '';
  return { ok: true, resumed: `${resumed}${where}${note ? `; ${note}` : ''}` };
}
