// Looking at a run on EKS through the API: each pod's phase and containers (exit code, OOMKilled, restarts),
// the culprit's node conditions, recent events of the job and the culprit, and the culprit's log tail. The
// lines read like the EC2 diagnosis's; the log, exits and events feed the same classifier.

import type { RunRecord } from '../../model/record.js';
import type { Probe } from '../policy/index.js';
import type { Seen } from '../probe.js';
import type { KubeNode, Pod } from './cluster.js';
import { hyperPodRetrying } from './owners.js';
import type { EksPlace } from './place.js';
import { badness, culpritPod, podLine, trainingContainer } from './pods.js';
import { type EksApi, isKubeFailure, type Job, jobPodSelector } from './types.js';

/** What probing a run on EKS found: the Seen of every platform, the job as read, and its pods. */
export interface EksSeen extends Seen {
  readonly job?: Job;
  readonly pods?: readonly Pod[];
  /** Set when another controller owns the job's recovery (HyperPod). */
  readonly ownedBy?: string;
}

const LOG_LINES = 40;
/** A manifest larger than this is not kept on the run item (DynamoDB items hold 400 KB). */
const SAVED_MAX = 64 * 1024;
const EVENTS_KEPT = 4;
const OTHER_PODS_SHOWN = 4;
/** Node conditions that are bad when True (Ready is bad when not True). */
const PRESSURE = /Pressure$|Unavailable$|Problem|Xid|Gpu|GPU|Deadlock|ReadonlyFilesystem/;

const failed = (e: unknown) => (e instanceof Error ? e.message : String(e));

function nodeLines(n: KubeNode | undefined): { lines: string[]; disk?: string; gpu?: string } {
  if (!n) return { lines: [] };
  const bad = n.conditions.filter((c) =>
    c.type === 'Ready' ? c.status !== 'True' : c.status === 'True' && PRESSURE.test(c.type),
  );
  const lines = bad.map(
    (c) =>
      `node ${n.name}: ${c.type}=${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}`,
  );
  const disk = bad.find((c) => c.type === 'DiskPressure');
  const gpu = bad.find((c) => /Xid|Gpu|GPU/.test(c.type));
  return {
    lines: n.unschedulable ? [...lines, `node ${n.name} is cordoned`] : lines,
    disk: disk && `node ${n.name} is under DiskPressure: a restart there would fail on disk`,
    gpu: gpu && `node ${n.name}: ${gpu.type}${gpu.message ? ` (${gpu.message})` : ''}`,
  };
}

/** The other pods that do not look healthy, a line each (the first few), worst first. */
function othersInTrouble(pods: readonly Pod[], culprit: Pod | undefined): string[] {
  const bad = pods
    .filter((p) => p !== culprit && badness(p) !== undefined)
    .sort((a, b) => (badness(a) ?? 0) - (badness(b) ?? 0));
  const shown = bad.slice(0, OTHER_PODS_SHOWN).map(podLine);
  return bad.length > shown.length
    ? [...shown, `and ${bad.length - shown.length} more pods not healthy`]
    : shown;
}

/** Probes the run's job; every way it can fail becomes a finding, never a throw of the run's fault. */
export async function probeEks(api: EksApi, place: EksPlace, rec: RunRecord): Promise<EksSeen> {
  const none = (finding: string): EksSeen => ({ probe: { ok: false, finding }, evidence: '' });
  const ns = place.namespace;
  let job: Job;
  try {
    job = await api.getJob(ns, place.kind, place.job);
  } catch (e) {
    if (!isKubeFailure(e, 404)) return none(`could not read ${place.kind} ${place.job}: ${failed(e)}`);
    const gone = `${place.kind} ${place.job} is gone from namespace ${ns} (deleted, or cleaned up after it ended)`;
    // Nothing of it runs, and its spec was saved while it existed: the policy may have it re-created (launch).
    if (!rec.remediation?.savedJob) return none(gone);
    const lines = [gone, `its spec was saved while it ran: a restart re-creates ${place.kind} ${place.job}`];
    return { probe: { ok: true, summary: { lines, processAlive: false, truncated: false } }, evidence: '' };
  }
  const selector = jobPodSelector(job);
  const pods = selector ? await api.listPods(ns, selector).catch(() => undefined) : [];
  if (!pods) return { ...none(`could not list the pods of ${place.kind} ${place.job}`), job };
  const culprit = culpritPod(pods, rec, place);
  const main = culprit && trainingContainer(culprit);
  const [events, node, log] = await Promise.all([
    Promise.all(
      [job.name, ...(culprit ? [culprit.name] : [])].map((n) => api.listEvents(ns, n).catch(() => [])),
    ),
    culprit?.nodeName ? api.getNode(culprit.nodeName).catch(() => undefined) : undefined,
    culprit && main
      ? api
          .podLogTail(ns, culprit.name, {
            container: main.name,
            lines: LOG_LINES,
            previous: main.restartCount > 0 && main.current.state !== 'terminated',
          })
          .catch(() => '')
      : '',
  ]);
  const warnings = events
    .flat()
    .filter((e) => e.type === 'Warning')
    .sort((a, b) => (b.lastTimestamp ?? '').localeCompare(a.lastTimestamp ?? ''))
    .slice(0, EVENTS_KEPT)
    .map((e) =>
      `event ${e.objectKind ?? ''} ${e.reason}${e.count > 1 ? ` ×${e.count}` : ''}: ${e.message}`.replace(
        '  ',
        ' ',
      ),
    );
  const n = nodeLines(node);
  const ownedBy = hyperPodRetrying(job, pods);
  const running = pods.filter((p) => p.phase === 'Running').length;
  const lines = [
    ...(ownedBy ? [ownedBy] : []),
    ...(culprit ? [podLine(culprit)] : [`no pods of ${place.kind} ${place.job} exist`]),
    ...n.lines,
    ...othersInTrouble(pods, culprit),
    `${running} of ${pods.length} pods Running`,
    ...warnings,
  ];
  const saved = JSON.stringify(job.manifest);
  const probe: Probe = {
    ok: true,
    summary: {
      lines,
      processAlive: culprit ? culprit.phase === 'Running' && main?.current.state === 'running' : false,
      ...(n.gpu && { gpuFailure: n.gpu }),
      ...(n.disk && { diskFull: n.disk }),
      truncated: false,
    },
  };
  const exits = pods
    .flatMap((p) => p.containers.flatMap((c) => [c.current, c.last ?? { state: 'unknown' as const }]))
    .flatMap((s) =>
      s.state === 'terminated' && s.reason && s.reason !== 'Completed'
        ? [`container ${s.reason} (exit code ${s.exitCode})`]
        : [],
    );
  return {
    probe,
    evidence: [...exits, ...warnings, log].join('\n'),
    job,
    pods,
    ...(ownedBy && { ownedBy }),
    ...(saved.length <= SAVED_MAX && { savedJob: saved }),
  };
}
