// The calls trainwatch makes to a cluster, bound to one client: the port a remediation on EKS is given.

import type { EksApi } from '../../../core/remediation/eks/types.js';
import { listEvents } from './events.js';
import { createJob, getJob, patchJob } from './jobs.js';
import type { Kube } from './kubeApi.js';
import { getNode } from './nodes.js';
import { deletePods, listPods, podLogTail } from './pods.js';

export type { EksApi };

/** The calls, made through `kube`. */
export function eksApi(kube: Kube): EksApi {
  return {
    getJob: (ns, kind, name) => getJob(kube, ns, kind, name),
    listPods: (ns, selector) => listPods(kube, ns, selector),
    listEvents: (ns, name) => listEvents(kube, ns, name),
    getNode: (name) => getNode(kube, name),
    podLogTail: (ns, pod, opts) => podLogTail(kube, ns, pod, opts),
    deletePods: (ns, selector, opts) => deletePods(kube, ns, selector, opts),
    patchJob: (ns, kind, name, patch) => patchJob(kube, ns, kind, name, patch),
    createJob: (ns, kind, body) => createJob(kube, ns, kind, body),
  };
}
