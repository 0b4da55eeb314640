// A node's health as its kubelet last reported it: Ready, MemoryPressure, DiskPressure, PIDPressure,
// NetworkUnavailable, and any a node-problem-detector adds (a GPU's Xid, a kernel deadlock).

import type { KubeNode, NodeCondition } from '../../../core/remediation/eks/cluster.js';
import type { Kube } from './kubeApi.js';
import { dnsSubdomain } from './names.js';

export type { KubeNode, NodeCondition };

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
