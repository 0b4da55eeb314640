// The training jobs trainwatch watches on EKS: Kubeflow's PyTorchJob and KubeRay's RayJob. Read narrowly
// (what a diagnosis and a restart need), suspended and resumed by a merge patch, re-created from what was
// read.
import { KubeInputError } from './errors.js';
import type { Kube } from './kubeApi.js';
import { dnsLabel, dnsSubdomain, type LabelSelector } from './names.js';

/** The job kinds, with the API version and resource they are served under. */
export const JOB_KINDS = {
  PyTorchJob: { apiVersion: 'kubeflow.org/v1', plural: 'pytorchjobs' },
  RayJob: { apiVersion: 'ray.io/v1', plural: 'rayjobs' },
} as const;

/** A job kind trainwatch knows. */
export type JobKind = keyof typeof JOB_KINDS;

/** A condition of a PyTorchJob (Created, Running, Restarting, Succeeded, Failed, Suspended). */
export interface JobCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

/** What re-creates a job: its kind, name, labels, annotations and spec (no uid, status or server fields). */
export interface JobManifest {
  readonly apiVersion: string;
  readonly kind: JobKind;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec: Readonly<Record<string, unknown>>;
}

/** A job as trainwatch reads it. */
export interface Job {
  readonly kind: JobKind;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** PyTorchJob `spec.runPolicy.suspend`, RayJob `spec.suspend`. */
  readonly suspended: boolean;
  readonly conditions: readonly JobCondition[];
  /** RayJob `status.jobStatus` (PENDING, RUNNING, STOPPED, SUCCEEDED, FAILED). */
  readonly jobStatus?: string;
  /** RayJob `status.jobDeploymentStatus` (Initializing, Running, Complete, Failed, Suspended, …). */
  readonly deploymentStatus?: string;
  /** RayJob `status.rayClusterName`: its pods carry `ray.io/cluster` with this value. */
  readonly rayClusterName?: string;
  /** RayJob `status.message`. */
  readonly message?: string;
  readonly manifest: JobManifest;
}

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

/** The labels of the job's pods: the training operator's job-name label, or the RayJob's cluster. */
export function jobPodSelector(job: Job): LabelSelector | undefined {
  if (job.kind === 'PyTorchJob') return { 'training.kubeflow.org/job-name': job.name };
  return job.rayClusterName ? { 'ray.io/cluster': job.rayClusterName } : undefined;
}
