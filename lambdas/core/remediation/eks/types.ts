// The Kubernetes calls remediation makes on EKS, as a port: what a job, its pods, their events and nodes look
// like to trainwatch (only the fields it reads), and the calls. lambdas/adapters/platforms/eks implements it
// over the cluster's API; the tests run it against a real kube-apiserver.
import type { KubeEvent, KubeNode, Pod } from './cluster.js';

/** The job kinds trainwatch acts on, with the API version each is served under. */
export const JOB_KINDS = {
  PyTorchJob: { apiVersion: 'kubeflow.org/v1', plural: 'pytorchjobs' },
  RayJob: { apiVersion: 'ray.io/v1', plural: 'rayjobs' },
} as const;
export type JobKind = keyof typeof JOB_KINDS;

/** Labels a selector must match, all of them (equalities only: never a string from a heartbeat). */
export type LabelSelector = Readonly<Record<string, string>>;

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

export interface DeletePodsOptions {
  /** Seconds the containers get after SIGTERM (to save a checkpoint). @default the pods' own setting */
  readonly gracePeriodSeconds?: number;
}

/** What trainwatch reads and changes on a cluster (docs/EKS.md lists the RBAC each call needs). */
export interface EksApi {
  /** pytorchjobs / rayjobs: get. */
  getJob(namespace: string, kind: JobKind, name: string): Promise<Job>;
  /** pods: list. */
  listPods(namespace: string, selector: LabelSelector): Promise<Pod[]>;
  /** events: list. */
  listEvents(namespace: string, involvedObjectName: string): Promise<KubeEvent[]>;
  /** nodes: get (cluster-wide). */
  getNode(name: string): Promise<KubeNode>;
  /** pods/log: get. */
  podLogTail(namespace: string, pod: string, opts: LogTailOptions): Promise<string>;
  /** pods: deletecollection. */
  deletePods(namespace: string, selector: LabelSelector, opts?: DeletePodsOptions): Promise<string[]>;
  /** pytorchjobs / rayjobs: patch. */
  patchJob(namespace: string, kind: JobKind, name: string, mergePatch: Record<string, unknown>): Promise<Job>;
  /** pytorchjobs / rayjobs: create. */
  createJob(namespace: string, kind: JobKind, body: JobManifest): Promise<Job>;
}

/** An API answer with its HTTP status (404: gone; 403: RBAC refuses), as the adapter throws it. */
export interface KubeFailure {
  readonly name: 'KubeApiError';
  readonly status?: number;
  readonly message: string;
}

/** Whether `e` is the adapter's API error, with the status `status` where given. */
export function isKubeFailure(e: unknown, status?: number): e is KubeFailure {
  return (
    e instanceof Error &&
    e.name === 'KubeApiError' &&
    (status === undefined || (e as unknown as KubeFailure).status === status)
  );
}

/** The labels of a job's pods: the training operator's job-name label, or the RayJob's cluster. */
export function jobPodSelector(job: Job): LabelSelector | undefined {
  if (job.kind === 'PyTorchJob') return { 'training.kubeflow.org/job-name': job.name };
  return job.rayClusterName ? { 'ray.io/cluster': job.rayClusterName } : undefined;
}
