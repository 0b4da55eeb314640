// Which pod of a job to blame, and each pod in one line. A container that died (OOMKilled first) outranks
// one crash-looping, then a pod failed or evicted as a whole, then one that cannot start; with none of
// those, the node the stacks single out (its rank's pod), else the pod of the client that wrote metadata.json.

import type { RunRecord } from '../../model/record.js';
import type { ContainerState, ContainerStatus, Pod } from './cluster.js';
import type { EksPlace } from './place.js';

const STUCK_WAITING =
  /CrashLoopBackOff|ImagePullBackOff|ErrImagePull|CreateContainer|RunContainerError|InvalidImageName/;

const died = (s: ContainerState | undefined) => s?.state === 'terminated' && s.exitCode !== 0;

/** How bad a pod looks: lower is worse; undefined when it looks healthy. */
export function badness(p: Pod): number | undefined {
  const cs = p.containers;
  if (
    cs.some((c) =>
      [c.current, c.last].some((s) => died(s) && s?.state === 'terminated' && s.reason === 'OOMKilled'),
    )
  )
    return 0;
  if (cs.some((c) => died(c.current))) return 1;
  if (cs.some((c) => c.current.state === 'waiting' && STUCK_WAITING.test(c.current.reason ?? ''))) return 2;
  if (p.phase === 'Failed' || p.reason) return 3;
  if (cs.some((c) => died(c.last))) return 4;
  if (p.phase === 'Pending' || p.phase === 'Unknown') return 5;
  return undefined;
}

/** The node rank of a PyTorchJob pod (master 0, worker i → i + 1 with a master, i without), if labelled so. */
export function podRank(p: Pod, hasMaster: boolean): number | undefined {
  const type = p.labels['training.kubeflow.org/replica-type']?.toLowerCase();
  const index = Number(p.labels['training.kubeflow.org/replica-index']);
  if (!Number.isInteger(index)) return undefined;
  if (type === 'master') return index;
  return type === 'worker' ? index + (hasMaster ? 1 : 0) : undefined;
}

/** The pod to blame (see above), or undefined when the job has no pods. */
export function culpritPod(pods: readonly Pod[], rec: RunRecord, place: EksPlace): Pod | undefined {
  const ranked = pods
    .map((p) => ({ p, b: badness(p) }))
    .filter((x): x is { p: Pod; b: number } => x.b !== undefined)
    .sort((a, b) => a.b - b.b);
  if (ranked[0]) return ranked[0].p;
  const hasMaster = pods.some(
    (p) => p.labels['training.kubeflow.org/replica-type']?.toLowerCase() === 'master',
  );
  const suspect = rec.facts.stacks?.suspects[0];
  const byStacks = suspect === undefined ? undefined : pods.find((p) => podRank(p, hasMaster) === suspect);
  return byStacks ?? pods.find((p) => p.name === place.pod) ?? pods[0];
}

/** The container that runs the training: the one that died or waits, else the first. */
export function trainingContainer(p: Pod): ContainerStatus | undefined {
  return (
    p.containers.find((c) => died(c.current) || c.current.state === 'waiting') ??
    p.containers.find((c) => died(c.last)) ??
    p.containers[0]
  );
}

function stateText(s: ContainerState): string {
  switch (s.state) {
    case 'terminated':
      return `terminated ${s.reason ?? ''} (exit code ${s.exitCode}${s.signal ? `, signal ${s.signal}` : ''})`.replace(
        '  ',
        ' ',
      );
    case 'waiting':
      return `waiting: ${s.reason ?? 'unknown reason'}`;
    case 'running':
      return 'running';
    default:
      return 'in an unknown state';
  }
}

/** "pod llama-worker-1 on node ip-10-0-1-23 (Failed, Evicted): container pytorch terminated OOMKilled (exit code 137), 2 restarts". */
export function podLine(p: Pod): string {
  const c = trainingContainer(p);
  const why = [p.phase, p.reason].filter(Boolean).join(', ');
  const container = c
    ? `: container ${c.name} ${stateText(c.current)}${c.last && c.current.state !== 'terminated' && c.last.state === 'terminated' ? `, last ${stateText(c.last)}` : ''}${c.restartCount ? `, ${c.restartCount} restart${c.restartCount === 1 ? '' : 's'}` : ''}`
    : '';
  return `pod ${p.name}${p.nodeName ? ` on node ${p.nodeName}` : ''} (${why})${container}`;
}
