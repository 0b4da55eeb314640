// A job's pods: their phase, node and containers' states (what says OOMKilled, a crash loop, a lost node),
// the tail of a container's log, and deleting them all at once so the job's operator starts them again.
import type { Kube } from './kubeApi.js';
import { listAll } from './listAll.js';
import { dnsLabel, dnsSubdomain, type LabelSelector, selectorText } from './names.js';

/** A container's state: waiting (a reason like CrashLoopBackOff), running, or terminated with its exit. */
export type ContainerState =
  | { readonly state: 'waiting'; readonly reason?: string; readonly message?: string }
  | { readonly state: 'running'; readonly startedAt?: string }
  | {
      readonly state: 'terminated';
      readonly exitCode: number;
      /** OOMKilled, Error, ContainerCannotRun, Completed, … */
      readonly reason?: string;
      readonly signal?: number;
      readonly message?: string;
      readonly finishedAt?: string;
    }
  | { readonly state: 'unknown' };

/** One container of a pod. */
export interface ContainerStatus {
  readonly name: string;
  readonly ready: boolean;
  readonly restartCount: number;
  readonly current: ContainerState;
  /** How the previous run of the container ended (a crash loop's cause is here). */
  readonly last?: ContainerState;
}

/** A pod as trainwatch reads it. */
export interface Pod {
  readonly name: string;
  /** Pending, Running, Succeeded, Failed, Unknown. */
  readonly phase: string;
  readonly nodeName?: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Why the pod as a whole stopped: Evicted, NodeLost, Shutdown, … */
  readonly reason?: string;
  readonly message?: string;
  /** Deletion has begun (the kubelet is stopping it). */
  readonly deleting: boolean;
  readonly containers: readonly ContainerStatus[];
}

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

export interface DeletePodsOptions {
  /** Seconds the containers get after SIGTERM (to save a checkpoint). @default the pods' own setting */
  readonly gracePeriodSeconds?: number;
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

export interface LogTailOptions {
  /** Required when the pod has more than one container. */
  readonly container?: string;
  /** Lines from the end. */
  readonly lines: number;
  /** The previous run of the container (the one that crashed), not the current one. @default false */
  readonly previous?: boolean;
  /** At most this many bytes. @default 262144 */
  readonly limitBytes?: number;
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
