// A job's pods: their phase, node and containers' states (what says OOMKilled, a crash loop, a lost node),
// the tail of a container's log, and deleting them all at once so the job's operator starts them again.

import type { ContainerState, ContainerStatus, Pod } from '../../../core/remediation/eks/cluster.js';
import type { DeletePodsOptions, LogTailOptions } from '../../../core/remediation/eks/types.js';
import type { Kube } from './kubeApi.js';
import { listAll } from './listAll.js';
import { dnsLabel, dnsSubdomain, type LabelSelector, selectorText } from './names.js';

export type { ContainerState, ContainerStatus, DeletePodsOptions, LogTailOptions, Pod };

interface RawState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: {
    exitCode?: number;
    reason?: string;
    signal?: number;
    message?: string;
    finishedAt?: string;
  };
}

interface RawPod {
  metadata?: { name?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    containerStatuses?: {
      name?: string;
      ready?: boolean;
      restartCount?: number;
      state?: RawState;
      lastState?: RawState;
    }[];
  };
}

function toState(raw: RawState | undefined): ContainerState {
  if (raw?.terminated) {
    const t = raw.terminated;
    return {
      state: 'terminated',
      exitCode: t.exitCode ?? -1,
      reason: t.reason,
      signal: t.signal,
      message: t.message,
      finishedAt: t.finishedAt,
    };
  }
  if (raw?.running) return { state: 'running', startedAt: raw.running.startedAt };
  if (raw?.waiting) return { state: 'waiting', reason: raw.waiting.reason, message: raw.waiting.message };
  return { state: 'unknown' };
}

function toPod(raw: RawPod): Pod {
  const status = raw.status ?? {};
  return {
    name: raw.metadata?.name ?? '',
    phase: status.phase ?? 'Unknown',
    nodeName: raw.spec?.nodeName || undefined,
    labels: raw.metadata?.labels ?? {},
    reason: status.reason,
    message: status.message,
    deleting: Boolean(raw.metadata?.deletionTimestamp),
    containers: (status.containerStatuses ?? []).map((c) => {
      const last = toState(c.lastState);
      return {
        name: c.name ?? '',
        ready: c.ready === true,
        restartCount: c.restartCount ?? 0,
        current: toState(c.state),
        ...(last.state !== 'unknown' && { last }),
      };
    }),
  };
}

function podsPath(namespace: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(dnsLabel('namespace', namespace))}/pods`;
}

/** The namespace's pods that carry all the selector's labels. */
export async function listPods(kube: Kube, namespace: string, selector: LabelSelector): Promise<Pod[]> {
  const raw = await listAll<RawPod>(kube, podsPath(namespace), { labelSelector: selectorText(selector) });
  return raw.map(toPod);
}

/**
 * Deletes every pod of the namespace that carries all the selector's labels, in one call (the
 * `deletecollection` verb); returns their names. The selector must be narrow (names.ts, selectorText).
 */
export async function deletePods(
  kube: Kube,
  namespace: string,
  selector: LabelSelector,
  opts: DeletePodsOptions = {},
): Promise<string[]> {
  const grace = opts.gracePeriodSeconds;
  if (grace !== undefined && !(Number.isInteger(grace) && grace >= 0))
    throw new RangeError(`gracePeriodSeconds must be a whole number ≥ 0, not ${grace}`);
  const deleted = await kube.json<{ items?: RawPod[] }>({
    method: 'DELETE',
    path: podsPath(namespace),
    query: { labelSelector: selectorText(selector), gracePeriodSeconds: grace },
  });
  return (deleted.items ?? []).map((p) => p.metadata?.name ?? '');
}

/** The last lines of a container's log (through the API server, from the node's kubelet). */
export async function podLogTail(
  kube: Kube,
  namespace: string,
  pod: string,
  opts: LogTailOptions,
): Promise<string> {
  if (!(Number.isInteger(opts.lines) && opts.lines > 0))
    throw new RangeError(`lines must be ≥ 1, not ${opts.lines}`);
  return kube.text({
    method: 'GET',
    path: `${podsPath(namespace)}/${encodeURIComponent(dnsSubdomain('pod name', pod))}/log`,
    query: {
      container: opts.container === undefined ? undefined : dnsLabel('container name', opts.container),
      tailLines: opts.lines,
      limitBytes: opts.limitBytes ?? 262_144,
      previous: opts.previous || undefined,
    },
  });
}
