// Where a run on EKS lives, from what the client saw in its pod (metadata.json `platform`, protocol v1.4)
// and the stack's configuration (the clusters trainwatch may act in, and their namespaces). Heartbeat
// content is untrusted: every name is checked against Kubernetes' syntax, and a cluster or namespace the
// configuration does not list is refused, never guessed.
import { EKS_CLUSTER, K8S_LABEL, K8S_SUBDOMAIN } from '../../protocol/platform.js';
import { JOB_KINDS, type JobKind } from './types.js';

/** A cluster remediation may act in, and the namespaces it may act in there. */
export interface EksClusterSettings {
  readonly name: string;
  readonly namespaces: readonly string[];
}

/** How remediation restarts a PyTorchJob's gang. */
export const GANG_RESTARTS = ['pods', 'suspend'] as const;
export type GangRestart = (typeof GANG_RESTARTS)[number];

/** What remediation needs to know about EKS (configuration, never heartbeat content). */
export interface EksSettings {
  readonly clusters: readonly EksClusterSettings[];
  /** `pods`: delete every pod of the job (any training-operator); `suspend`: suspend, wait, resume. @default 'pods' */
  readonly gangRestart?: GangRestart;
}

/** A run's job on a cluster, every name checked. */
export interface EksPlace {
  readonly cluster: string;
  readonly namespace: string;
  readonly kind: JobKind;
  readonly job: string;
  /** The pod and node of the client that wrote metadata.json (rank 0's). */
  readonly pod?: string;
  readonly node?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** How `status` and the alerts name where the run lives: "EKS ml-prod/team-a/PyTorchJob llama". */
export function describePlace(p: EksPlace): string {
  return `EKS ${p.cluster}/${p.namespace}/${p.kind} ${p.job}`;
}

/**
 * The run's place from metadata.json's `platform`, or a problem (one line for the alert) when it claims EKS
 * but names no usable job, or one outside what the configuration allows. Undefined: not a run on EKS.
 */
export function eksPlaceOf(
  platform: unknown,
  settings: EksSettings | undefined,
): { place?: EksPlace; problem?: string } {
  if (!platform || typeof platform !== 'object') return {};
  const p = platform as Record<string, unknown>;
  if (p.kind !== 'eks') return {};
  const job = (p.job ?? {}) as Record<string, unknown>;
  const kind = str(job.kind);
  const name = str(job.name);
  const namespace = str(p.namespace);
  if (!kind || !Object.hasOwn(JOB_KINDS, kind))
    return {
      problem: `metadata.json platform.job.kind ${JSON.stringify(kind ?? null)} is not PyTorchJob or RayJob`,
    };
  if (!name || !K8S_SUBDOMAIN.test(name))
    return { problem: 'metadata.json platform.job.name is missing or not a Kubernetes name' };
  if (!namespace || !K8S_LABEL.test(namespace))
    return { problem: 'metadata.json platform.namespace is missing or not a Kubernetes namespace' };
  const clusters = settings?.clusters ?? [];
  const named = str(p.cluster);
  if (named !== undefined && !EKS_CLUSTER.test(named))
    return { problem: 'metadata.json platform.cluster is not an EKS cluster name' };
  const cluster = named
    ? clusters.find((c) => c.name === named)
    : clusters.length === 1
      ? clusters[0]
      : undefined;
  if (!cluster)
    return {
      problem: named
        ? `cluster ${named} is not one trainwatch may act in (remediation.eks.clusters)`
        : clusters.length
          ? 'metadata.json names no cluster and several are configured (set TRAINWATCH_EKS_CLUSTER in the pod)'
          : 'no EKS cluster is configured (remediation.eks.clusters)',
    };
  if (!cluster.namespaces.includes(namespace))
    return { problem: `namespace ${namespace} of cluster ${cluster.name} is not one trainwatch may act in` };
  const pod = str(p.pod);
  const node = str(p.node);
  return {
    place: {
      cluster: cluster.name,
      namespace,
      kind: kind as JobKind,
      job: name,
      ...(pod && K8S_SUBDOMAIN.test(pod) && { pod }),
      ...(node && K8S_SUBDOMAIN.test(node) && { node }),
    },
  };
}
