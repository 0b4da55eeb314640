// The training jobs trainwatch watches on EKS: Kubeflow's PyTorchJob and KubeRay's RayJob. Read narrowly
// (what a diagnosis and a restart need), suspended and resumed by a merge patch, re-created from what was
// read.

import {
  JOB_KINDS,
  type Job,
  type JobCondition,
  type JobKind,
  type JobManifest,
  jobPodSelector,
} from '../../../core/remediation/eks/types.js';
import { KubeInputError } from './errors.js';
import type { Kube } from './kubeApi.js';
import { dnsLabel, dnsSubdomain } from './names.js';

export type { Job, JobCondition, JobKind, JobManifest };
export { JOB_KINDS, jobPodSelector };

interface RawJob {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown> & { suspend?: unknown; runPolicy?: { suspend?: unknown } };
  status?: {
    conditions?: JobCondition[];
    jobStatus?: string;
    jobDeploymentStatus?: string;
    rayClusterName?: string;
    message?: string;
  };
}

/** The kind, checked: anything else is refused before a URL is built from it. */
export function jobKind(value: unknown): JobKind {
  if (typeof value === 'string' && Object.hasOwn(JOB_KINDS, value)) return value as JobKind;
  throw new KubeInputError(
    `${JSON.stringify(value)} is not a job kind (${Object.keys(JOB_KINDS).join(', ')})`,
  );
}

function collection(namespace: string, kind: JobKind): string {
  const { apiVersion, plural } = JOB_KINDS[jobKind(kind)];
  return `/apis/${apiVersion}/namespaces/${encodeURIComponent(dnsLabel('namespace', namespace))}/${plural}`;
}

function item(namespace: string, kind: JobKind, name: string): string {
  return `${collection(namespace, kind)}/${encodeURIComponent(dnsSubdomain('job name', name))}`;
}

function toJob(kind: JobKind, raw: RawJob): Job {
  const meta = raw.metadata ?? {};
  const spec = raw.spec ?? {};
  const status = raw.status ?? {};
  const suspend = kind === 'PyTorchJob' ? spec.runPolicy?.suspend : spec.suspend;
  return {
    kind,
    namespace: meta.namespace ?? '',
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    suspended: suspend === true,
    conditions: (status.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      lastTransitionTime: c.lastTransitionTime,
    })),
    jobStatus: status.jobStatus,
    deploymentStatus: status.jobDeploymentStatus,
    rayClusterName: status.rayClusterName,
    message: status.message,
    manifest: {
      apiVersion: JOB_KINDS[kind].apiVersion,
      kind,
      metadata: {
        name: meta.name ?? '',
        namespace: meta.namespace,
        ...(meta.labels && { labels: meta.labels }),
        ...(meta.annotations && { annotations: meta.annotations }),
      },
      spec,
    },
  };
}

/** The job, or a KubeApiError (404 NotFound when it is gone). */
export async function getJob(kube: Kube, namespace: string, kind: JobKind, name: string): Promise<Job> {
  return toJob(kind, await kube.json<RawJob>({ method: 'GET', path: item(namespace, kind, name) }));
}

/** Applies a JSON merge patch (RFC 7386) to the job; returns it as patched. */
export async function patchJob(
  kube: Kube,
  namespace: string,
  kind: JobKind,
  name: string,
  mergePatch: Readonly<Record<string, unknown>>,
): Promise<Job> {
  const path = item(namespace, kind, name);
  const raw = await kube.json<RawJob>({
    method: 'PATCH',
    path,
    body: mergePatch,
    contentType: 'application/merge-patch+json',
  });
  return toJob(kind, raw);
}

/** The merge patch that suspends (or resumes) a job of this kind. */
export function suspendPatch(kind: JobKind, suspend = true): Record<string, unknown> {
  return jobKind(kind) === 'PyTorchJob' ? { spec: { runPolicy: { suspend } } } : { spec: { suspend } };
}

/** Creates the job from a manifest (a read job's `manifest` re-creates it); returns it as created. */
export async function createJob(
  kube: Kube,
  namespace: string,
  kind: JobKind,
  body: JobManifest,
): Promise<Job> {
  if (body.kind !== kind) throw new KubeInputError(`the manifest is a ${body.kind}, not a ${kind}`);
  if (body.metadata.namespace !== undefined && body.metadata.namespace !== namespace)
    throw new KubeInputError(`the manifest is for namespace ${body.metadata.namespace}, not ${namespace}`);
  dnsSubdomain('job name', body.metadata.name);
  const created = await kube.json<RawJob>({
    method: 'POST',
    path: collection(namespace, kind),
    body: { ...body, apiVersion: JOB_KINDS[kind].apiVersion, metadata: { ...body.metadata, namespace } },
  });
  return toJob(kind, created);
}
