// A node's health as its kubelet last reported it: Ready, MemoryPressure, DiskPressure, PIDPressure,
// NetworkUnavailable, and any a node-problem-detector adds (a GPU's Xid, a kernel deadlock).
import type { Kube } from './kubeApi.js';
import { dnsSubdomain } from './names.js';

/** One condition: `status` is True, False or Unknown (the kubelet stopped reporting). */
export interface NodeCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastHeartbeatTime?: string;
  readonly lastTransitionTime?: string;
}

/** A node as trainwatch reads it. */
export interface KubeNode {
  readonly name: string;
  readonly conditions: readonly NodeCondition[];
  /** Cordoned: no new pods are placed on it. */
  readonly unschedulable: boolean;
  /** The EC2 instance behind it, from `spec.providerID` (`aws:///us-east-1a/i-0abc…`), for SSM. */
  readonly instanceId?: string;
}

interface RawNode {
  metadata?: { name?: string };
  spec?: { unschedulable?: boolean; providerID?: string };
  status?: { conditions?: NodeCondition[] };
}

/** The node's conditions, cordon and EC2 instance. */
export async function getNode(kube: Kube, name: string): Promise<KubeNode> {
  const raw = await kube.json<RawNode>({
    method: 'GET',
    path: `/api/v1/nodes/${encodeURIComponent(dnsSubdomain('node name', name))}`,
  });
  const instance = /^aws:\/\/\/[^/]*\/(i-[0-9a-f]{8,17})$/.exec(raw.spec?.providerID ?? '');
  return {
    name: raw.metadata?.name ?? name,
    conditions: (raw.status?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      lastHeartbeatTime: c.lastHeartbeatTime,
      lastTransitionTime: c.lastTransitionTime,
    })),
    unschedulable: raw.spec?.unschedulable === true,
    ...(instance?.[1] && { instanceId: instance[1] }),
  };
}
