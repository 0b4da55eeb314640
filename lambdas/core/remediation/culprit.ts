import { formatDuration } from '../base/duration.js';
import { type NodeSummary, nodeLabel } from '../model/slices/nodes.js';
import { summarize } from './diagnosis/summary.js';
import type { Diagnosis } from './diagnosis/types.js';

/** What was learnt about one node on a failure: its diagnosis, or why it could not be examined. */
export interface NodeExamination {
  readonly rank: number;
  readonly summary?: NodeSummary;
  readonly diagnosis?: Diagnosis;
  /** Why no diagnosis: "SSM agent offline", "not a managed instance", "no instance id in nodes/3.json". */
  readonly unexamined?: string;
  /** How long the node's file has been silent, when it is past the stale threshold. */
  readonly silentForMs?: number;
  /** Its training thread's stack sets it apart from the others' (core/stacks): where it is instead. */
  readonly stackOutlier?: string;
}

/** Kinds of evidence, strongest first: a broken GPU outranks everything it causes on other nodes. */
export const CULPRIT_KINDS = [
  'gpu_hardware',
  'host_oom',
  'disk_full',
  'process_gone',
  'stack_outlier',
  'heartbeat_silent',
  'gpus_idle',
] as const;
export type CulpritKind = (typeof CULPRIT_KINDS)[number];

/** The node to blame, with its evidence; `hardware` culprits must be replaced before a restart. */
export interface Culprit {
  readonly rank: number;
  readonly kind: CulpritKind;
  readonly evidence: string;
  readonly hardware: boolean;
  readonly instanceId?: string;
  readonly hostname?: string;
  readonly label: string;
}

/** The verdict over all nodes: the culprit (if any evidence singles one out), and the headcount. */
export interface NodeFindings {
  readonly culprit?: Culprit;
  /** Every node with evidence, strongest first (the culprit is the first). */
  readonly suspects: readonly Culprit[];
  readonly healthy: readonly number[];
  readonly unexamined: readonly { readonly rank: number; readonly why: string }[];
  /** One line for the alert: "node 7 (…): GPU 3: Xid 79, fallen off the bus — replace the node; 15 other nodes healthy". */
  readonly headline: string;
}

const IDLE_PCT = 5;

function meanUtil(d: Diagnosis): number | undefined {
  const u = d.gpus.map((g) => g.utilizationPct).filter((v): v is number => v !== null);
  return u.length ? u.reduce((a, b) => a + b, 0) / u.length : undefined;
}

/** The strongest evidence against one node, or undefined when it looks healthy. */
function evidenceOf(
  e: NodeExamination,
  othersAlive: boolean,
  othersBusy: boolean,
): { kind: CulpritKind; evidence: string } | undefined {
  const d = e.diagnosis;
  const s = d ? summarize(d) : undefined;
  if (s?.gpuFailure) return { kind: 'gpu_hardware', evidence: s.gpuFailure };
  if (d?.kernelOomKills.length || (d?.cgroupOomKills ?? 0) > 0)
    return {
      kind: 'host_oom',
      evidence: s!.lines.find((l) => /OOM|memory limit/.test(l)) ?? 'host OOM kill',
    };
  if (s?.diskFull) return { kind: 'disk_full', evidence: s.diskFull };
  if (d?.processAlive === false && othersAlive)
    return {
      kind: 'process_gone',
      evidence: 'training process not running while the other nodes still run it',
    };
  // A stack apart from the others' says where the hang is; a fault above it would explain it, silence would not.
  if (e.stackOutlier) return { kind: 'stack_outlier', evidence: e.stackOutlier };
  if (e.silentForMs !== undefined)
    return { kind: 'heartbeat_silent', evidence: `no node heartbeat for ${formatDuration(e.silentForMs)}` };
  const util = d ? meanUtil(d) : undefined;
  if (util !== undefined && util <= IDLE_PCT && othersBusy)
    return {
      kind: 'gpus_idle',
      evidence: `GPUs idle (${Math.round(util)}% utilisation) while the other nodes are busy`,
    };
  return undefined;
}

/**
 * Names the node that broke from every node's diagnosis, ranked: GPU Xid / ECC / fallen off the bus >
 * host OOM kill > disk or inodes full > training process gone > a training stack apart from the others'
 * (in its data loader while they wait in all_reduce) > heartbeat silent > GPUs idle while the others are
 * busy. Ties go to the node that went silent first, then the lowest rank. Pure.
 */
export function findCulprit(exams: readonly NodeExamination[]): NodeFindings {
  const examined = exams.filter((e) => e.diagnosis);
  const alive = examined.filter((e) => e.diagnosis!.processAlive === true).length;
  const busy = examined.filter((e) => (meanUtil(e.diagnosis!) ?? 0) > IDLE_PCT).length;
  const suspects: Culprit[] = [];
  const healthy: number[] = [];
  const unexamined: { rank: number; why: string }[] = [];
  for (const e of exams) {
    const ev = evidenceOf(e, alive > 0, busy > 0);
    if (!ev) {
      if (e.diagnosis) healthy.push(e.rank);
      else unexamined.push({ rank: e.rank, why: e.unexamined ?? 'not examined' });
      continue;
    }
    if (!e.diagnosis && e.unexamined) unexamined.push({ rank: e.rank, why: e.unexamined });
    suspects.push({
      rank: e.rank,
      ...ev,
      hardware: ev.kind === 'gpu_hardware',
      instanceId: e.summary?.instanceId,
      hostname: e.summary?.hostname,
      label: nodeLabel(e.rank, e.summary),
    });
  }
  const silentFor = (rank: number) => exams.find((e) => e.rank === rank)?.silentForMs ?? 0;
  suspects.sort(
    (a, b) =>
      CULPRIT_KINDS.indexOf(a.kind) - CULPRIT_KINDS.indexOf(b.kind) ||
      silentFor(b.rank) - silentFor(a.rank) ||
      a.rank - b.rank,
  );
  const culprit = suspects[0];
  const tail = [
    `${healthy.length} node${healthy.length === 1 ? '' : 's'} healthy`,
    ...(unexamined.length
      ? [
          `${unexamined.length} not examined (${unexamined
            .slice(0, 3)
            .map((u) => `${u.rank}: ${u.why}`)
            .join('; ')}${unexamined.length > 3 ? '; …' : ''})`,
        ]
      : []),
  ].join(', ');
  const headline = culprit ? `${culprit.label}: ${culprit.evidence}; ${tail}` : `no node stands out; ${tail}`;
  return { culprit, suspects, healthy, unexamined, headline };
}
