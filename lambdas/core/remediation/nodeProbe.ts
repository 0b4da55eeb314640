import type { RunRecord } from '../model/record.js';
import type { NodeSummaries } from '../model/slices/nodes.js';
import { findCulprit, type NodeExamination, type NodeFindings } from './culprit.js';
import { parseDiagnosis, summarize } from './diagnosis/index.js';
import type { Probe } from './policy/index.js';
import type { Seen } from './probe.js';
import { stackOutliers } from './stackEvidence.js';
import { diagnoseParameters, type RemediationTarget } from './target.js';
import type { RemediationDeps } from './types.js';

/** A node whose file is this much older than the freshest node's has stopped writing (they beat every ~60 s). */
export const NODE_SILENT_MS = 3 * 60_000;

/** Whether the run is a multi-node run whose nodes must all be examined. */
export function isMultiNode(rec: RunRecord): boolean {
  return (
    Object.keys(rec.facts.nodes ?? {}).length > 1 || (rec.meta?.nodes ?? rec.facts.nodesExpected ?? 1) > 1
  );
}

/** How long each node has been silent, from a fresh LIST (only nodes well behind the freshest). */
async function silences(deps: RemediationDeps, runId: string, now: number): Promise<Map<number, number>> {
  const run = await deps.runs.listRun(runId).catch(() => undefined);
  const nodes = run?.nodes ?? [];
  const freshest = Math.max(...nodes.map((n) => n.lastModified));
  return new Map(
    nodes
      .filter((n) => freshest - n.lastModified > NODE_SILENT_MS)
      .map((n) => [n.rank, now - n.lastModified]),
  );
}

/**
 * Runs the diagnosis on every node's instance (SendCommand batches of 50), parses each result and names
 * the culprit. The probe the restart policy sees is the culprit's (a full disk or an OOM kill there
 * blocks a restart), or node 0's when the culprit's GPU is broken: whether to restart around a broken
 * node is the restart target's call (`all` refuses, `head` excludes the host).
 */
export async function probeNodes(
  deps: Pick<RemediationDeps, 'commands' | 'settings' | 'runs'>,
  t: RemediationTarget,
  rec: RunRecord,
  now: number,
): Promise<Seen> {
  const summaries: NodeSummaries = rec.facts.nodes ?? {};
  const expected = Math.max(
    rec.meta?.nodes ?? rec.facts.nodesExpected ?? 0,
    ...Object.keys(summaries).map((r) => Number(r) + 1),
  );
  const silent = await silences(deps as RemediationDeps, rec.runId, now);
  const exams = new Map<number, NodeExamination>();
  const byInstance = new Map<string, number>();
  for (let rank = 0; rank < expected; rank++) {
    const summary = summaries[rank];
    const instanceId = summary?.instanceId ?? (rank === 0 ? t.instanceId : undefined);
    const base = { rank, summary, silentForMs: silent.get(rank) };
    if (!summary) exams.set(rank, { ...base, unexamined: 'never reported' });
    else if (!instanceId) exams.set(rank, { ...base, unexamined: `no instance_id in nodes/${rank}.json` });
    else if (byInstance.has(instanceId))
      exams.set(rank, { ...base, unexamined: `same instance as node ${byInstance.get(instanceId)}` });
    else {
      byInstance.set(instanceId, rank);
      exams.set(rank, base);
    }
  }
  let commandId: string | undefined;
  const document = deps.settings.diagnoseDocument;
  if (!document) {
    for (const [rank, e] of exams)
      if (!e.unexamined) exams.set(rank, { ...e, unexamined: 'no diagnosis document is configured' });
  } else if (byInstance.size > 0) {
    const results = await deps.commands.runOnEach({
      instanceIds: [...byInstance.keys()],
      document,
      timeoutSeconds: deps.settings.diagnoseTimeoutSeconds ?? 150,
      comment: `trainwatch diagnose ${rec.runId} (${byInstance.size} nodes)`,
      parameters: diagnoseParameters(t, rec.runId),
    });
    for (const [id, rank] of byInstance) {
      const r = results.get(id);
      const e = exams.get(rank)!;
      commandId ??= r?.commandId;
      exams.set(
        rank,
        r?.ok
          ? { ...e, diagnosis: parseDiagnosis(r.output) }
          : { ...e, unexamined: r?.finding ?? 'no result' },
      );
    }
  }
  const diagnoses = new Map([...exams].map(([rank, e]) => [rank, e.diagnosis]));
  const stacks = stackOutliers(rec, diagnoses, silent);
  for (const [rank, stackOutlier] of stacks.outliers)
    if (exams.has(rank)) exams.set(rank, { ...exams.get(rank)!, stackOutlier });
  const nodes = findCulprit([...exams.values()]);
  const evidenceNode = exams.get(nodes.culprit?.rank ?? 0)?.diagnosis ?? exams.get(0)?.diagnosis;
  return {
    probe: policyProbe(nodes, exams),
    evidence: evidenceOf(evidenceNode),
    commandId,
    nodes,
    stackFamily: stacks.family,
  };
}

function evidenceOf(d: ReturnType<typeof parseDiagnosis> | undefined): string {
  return d ? [...d.xids.map((x) => x.line), ...d.kernelOomKills, ...d.logTail].join('\n') : '';
}

function policyProbe(nodes: NodeFindings, exams: ReadonlyMap<number, NodeExamination>): Probe {
  const c = nodes.culprit;
  const pick = c && !c.hardware && exams.get(c.rank)?.diagnosis ? c.rank : 0;
  const d = exams.get(pick)?.diagnosis;
  if (d) return { ok: true, summary: summarize(d) };
  return { ok: false, finding: exams.get(pick)?.unexamined ?? `node ${pick} could not be examined` };
}
