// The events Kubernetes recorded about one object (a pod's BackOff, OOMKilling, FailedScheduling, Evicted, a
// node's NodeNotReady): what happened, how often and when last.

import type { KubeEvent } from '../../../core/remediation/eks/cluster.js';
import type { Kube } from './kubeApi.js';
import { listAll } from './listAll.js';
import { dnsLabel, dnsSubdomain } from './names.js';

export type { KubeEvent };

interface RawEvent {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: string | null;
  firstTimestamp?: string | null;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string };
  involvedObject?: { kind?: string };
}

function toEvent(raw: RawEvent): KubeEvent {
  // Events written through events.k8s.io/v1 carry eventTime and series instead of lastTimestamp and count.
  return {
    type: raw.type ?? '',
    reason: raw.reason ?? '',
    message: raw.message ?? '',
    count: raw.series?.count ?? raw.count ?? 1,
    lastTimestamp:
      raw.series?.lastObservedTime ?? raw.lastTimestamp ?? raw.eventTime ?? raw.firstTimestamp ?? undefined,
    objectKind: raw.involvedObject?.kind,
  };
}

/** The namespace's events about the object named `involvedObjectName`, oldest first. */
export async function listEvents(
  kube: Kube,
  namespace: string,
  involvedObjectName: string,
): Promise<KubeEvent[]> {
  const name = dnsSubdomain('object name', involvedObjectName);
  const raw = await listAll<RawEvent>(
    kube,
    `/api/v1/namespaces/${encodeURIComponent(dnsLabel('namespace', namespace))}/events`,
    { fieldSelector: `involvedObject.name=${name}` },
  );
  const at = (e: KubeEvent) => (e.lastTimestamp ? Date.parse(e.lastTimestamp) : 0);
  return raw.map(toEvent).sort((a, b) => at(a) - at(b));
}
