// Where a run lives, as metadata.json's `platform` tells it (protocol v1.4, written by a client in a
// Kubernetes pod): shown in status and alerts instead of an instance id. Display only: remediation checks
// the same fields again against the configured clusters before it acts (core/remediation/eks/place.ts).

/** Kubernetes' names: an RFC 1123 label (namespaces), an RFC 1123 subdomain (pods, nodes, jobs). */
export const K8S_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
export const K8S_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** An EKS cluster's name. */
export const EKS_CLUSTER = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const KINDS = new Set(['PyTorchJob', 'RayJob']);

const text = (v: unknown, shape: RegExp) => (typeof v === 'string' && shape.test(v) ? v : undefined);

/** "EKS ml-prod/training/PyTorchJob llama-sft" for a run on EKS, undefined otherwise or when unreadable. */
export function platformWhere(platform: unknown): string | undefined {
  if (!platform || typeof platform !== 'object') return undefined;
  const p = platform as Record<string, unknown>;
  if (p.kind !== 'eks') return undefined;
  const job = (p.job && typeof p.job === 'object' ? p.job : {}) as Record<string, unknown>;
  const namespace = text(p.namespace, K8S_LABEL);
  const name = text(job.name, K8S_SUBDOMAIN);
  const kind = typeof job.kind === 'string' && KINDS.has(job.kind) ? job.kind : undefined;
  if (!namespace) return undefined;
  const cluster = text(p.cluster, EKS_CLUSTER) ?? '(cluster not named)';
  return `EKS ${cluster}/${namespace}/${kind && name ? `${kind} ${name}` : (text(p.pod, K8S_SUBDOMAIN) ?? '(job not named)')}`;
}
