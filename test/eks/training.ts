import { setTimeout as sleep } from 'node:timers/promises';
import { createNamespace, createPod, EKS_RBAC, type Kube, type PodSpec, rbacPath } from '../support/kube.js';

export { createPod, type PodSpec };

import { admin, at, JOB_LABEL, NS } from './cluster.js';

export { JOB_LABEL, NS };
/** A namespace whose Role is docs/eks-rbac.yaml's without `deletecollection` on pods. */
export const RESTRICTED = 'restricted';
/** A namespace trainwatch's configuration does not list (its RBAC would allow nothing either). */
export const UNLISTED = 'elsewhere';
export const NODES = ['ip-10-0-2-11.ec2.internal', 'ip-10-0-2-12.ec2.internal'];
export const RAY_CLUSTER = 'ray.io/cluster';

const RBAC = EKS_RBAC;

const mergePatch = (kube: Kube, path: string, body: unknown) =>
  admin(kube, 'PATCH', path, body, 'application/merge-patch+json');

/** The RBAC objects of docs/eks-rbac.yaml, moved to `ns` and with `change` applied to the Role's rules. */
function rbacIn(ns: string, change: (rule: { resources: string[]; verbs: string[] }) => void = () => {}) {
  type Editable = {
    metadata: { namespace?: string };
    kind: string;
    rules?: { resources: string[]; verbs: string[] }[];
  };
  const copy = (structuredClone(RBAC) as unknown as Editable[]).filter((o) => o.metadata.namespace);
  for (const o of copy) {
    o.metadata.namespace = ns;
    if (o.kind === 'Role') o.rules?.forEach(change);
  }
  return copy as unknown as typeof RBAC;
}

/**
 * Namespaces (each with the default ServiceAccount no controller manager makes), docs/eks-rbac.yaml applied as
 * it is in NS, the same Role minus pods' `deletecollection` in RESTRICTED, and two Ready nodes whose kubelet is
 * at `kubeletPort` (a stand-in that serves logs).
 */
export async function prepare(kube: Kube, kubeletPort: number): Promise<void> {
  for (const name of [NS, RESTRICTED, UNLISTED]) await createNamespace(kube, name);
  for (const o of RBAC) await admin(kube, 'POST', rbacPath(o), o);
  const restricted = rbacIn(RESTRICTED, (r) => {
    if (r.resources.includes('pods')) r.verbs = r.verbs.filter((v) => v !== 'deletecollection');
  });
  for (const o of restricted) await admin(kube, 'POST', rbacPath(o), o);
  for (const [i, name] of NODES.entries()) {
    await admin(kube, 'POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name },
      spec: { providerID: `aws:///us-east-1a/i-0aaaaaaaaaaaaaa1${i}` },
    });
    await mergePatch(kube, `/api/v1/nodes/${name}/status`, {
      status: {
        addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } },
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            lastHeartbeatTime: at(5),
            lastTransitionTime: at(0),
          },
          {
            type: 'MemoryPressure',
            status: 'False',
            reason: 'KubeletHasSufficientMemory',
            lastHeartbeatTime: at(5),
          },
          {
            type: 'DiskPressure',
            status: 'False',
            reason: 'KubeletHasNoDiskPressure',
            lastHeartbeatTime: at(5),
          },
        ],
      },
    });
  }
}

// --- jobs ----------------------------------------------------------------------------------------------

const replica = (replicas: number) => ({
  replicas,
  restartPolicy: 'OnFailure',
  template: {
    spec: { containers: [{ name: 'pytorch', image: 'trainer:2.4', command: ['torchrun', 'train.py'] }] },
  },
});

export interface JobOptions {
  ns?: string;
  workers?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const jobsPath = (ns: string, kind: 'PyTorchJob' | 'RayJob') =>
  kind === 'PyTorchJob'
    ? `/apis/kubeflow.org/v1/namespaces/${ns}/pytorchjobs`
    : `/apis/ray.io/v1/namespaces/${ns}/rayjobs`;

/** Creates a PyTorchJob (one master, `workers` workers) with a Created/Running status, as its operator would. */
export async function pytorchJob(kube: Kube, name: string, o: JobOptions = {}): Promise<void> {
  const ns = o.ns ?? NS;
  await admin(kube, 'POST', jobsPath(ns, 'PyTorchJob'), {
    apiVersion: 'kubeflow.org/v1',
    kind: 'PyTorchJob',
    metadata: { name, labels: { team: 'research', ...o.labels }, annotations: o.annotations },
    spec: {
      runPolicy: { backoffLimit: 3, cleanPodPolicy: 'None' },
      pytorchReplicaSpecs: { Master: replica(1), Worker: replica(o.workers ?? 2) },
    },
  });
  await jobStatus(kube, ns, 'PyTorchJob', name, {
    conditions: [
      { type: 'Created', status: 'True', reason: 'PyTorchJobCreated', lastTransitionTime: at(0) },
      { type: 'Running', status: 'True', reason: 'PyTorchJobRunning', lastTransitionTime: at(1) },
    ],
  });
}

/** Creates a RayJob whose cluster is `<name>-raycluster-x7k2p`, Running. */
export async function rayJob(
  kube: Kube,
  name: string,
  spec: Record<string, unknown>,
  o: JobOptions = {},
): Promise<string> {
  const ns = o.ns ?? NS;
  await admin(kube, 'POST', jobsPath(ns, 'RayJob'), {
    apiVersion: 'ray.io/v1',
    kind: 'RayJob',
    metadata: { name, labels: o.labels },
    spec: { entrypoint: 'python tune.py', ...spec },
  });
  const cluster = `${name}-raycluster-x7k2p`;
  await jobStatus(kube, ns, 'RayJob', name, {
    jobStatus: 'RUNNING',
    jobDeploymentStatus: 'Running',
    rayClusterName: cluster,
  });
  return cluster;
}

export const jobStatus = (
  kube: Kube,
  ns: string,
  kind: 'PyTorchJob' | 'RayJob',
  name: string,
  status: unknown,
) => mergePatch(kube, `${jobsPath(ns, kind)}/${name}/status`, { status });

/** The fields of a stored job's spec the tests read (the rest kept as it is). */
export interface JobSpec {
  readonly runPolicy?: { readonly suspend?: boolean; readonly [k: string]: unknown };
  readonly suspend?: boolean;
  readonly [k: string]: unknown;
}

/** The job as stored (spec, status, resourceVersion): what the tests compare before and after. */
export async function storedJob(kube: Kube, ns: string, kind: 'PyTorchJob' | 'RayJob', name: string) {
  return (await admin(kube, 'GET', `${jobsPath(ns, kind)}/${name}`)) as {
    metadata: {
      uid: string;
      resourceVersion: string;
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
    spec: JobSpec;
    status?: Record<string, unknown>;
  };
}

/** Whether the job exists. */
export async function jobExists(kube: Kube, ns: string, kind: 'PyTorchJob' | 'RayJob', name: string) {
  return storedJob(kube, ns, kind, name).then(
    () => true,
    (e: Error) => {
      if (e.message.includes(': 404 ')) return false;
      throw e;
    },
  );
}

// --- pods ----------------------------------------------------------------------------------------------

export function container(
  state: Record<string, unknown>,
  restartCount = 0,
  lastState: Record<string, unknown> = {},
) {
  return {
    name: 'pytorch',
    image: 'trainer:2.4',
    imageID: '',
    ready: 'running' in state,
    restartCount,
    state,
    lastState,
  };
}

export const RUNNING = (restarts = 0) => ({
  phase: 'Running',
  containerStatuses: [container({ running: { startedAt: at(1) } }, restarts)],
});

/** The pods a PyTorchJob's operator makes: master-0 and worker-i, labelled with the job, replica type and index. */
export function gang(job: string, workers = 2): PodSpec[] {
  const pod = (type: 'master' | 'worker', index: number, n: number): PodSpec => ({
    name: `${job}-${type}-${index}`,
    labels: {
      [JOB_LABEL]: job,
      'training.kubeflow.org/operator-name': 'pytorchjob-controller',
      'training.kubeflow.org/replica-type': type,
      'training.kubeflow.org/replica-index': String(index),
    },
    node: NODES[n % NODES.length],
    status: RUNNING(),
  });
  return [pod('master', 0, 0), ...Array.from({ length: workers }, (_, i) => pod('worker', i, i + 1))];
}

/** The pods of a RayJob's cluster: a head and a worker, labelled `ray.io/cluster`. */
export function rayPods(cluster: string): PodSpec[] {
  return ['head', 'worker'].map((type, i) => ({
    name: `${cluster}-${type}-${i}`,
    labels: { [RAY_CLUSTER]: cluster, 'ray.io/node-type': type },
    node: NODES[i],
    status: RUNNING(),
  }));
}

export interface StoredPod {
  name: string;
  uid: string;
  deleting: boolean;
  phase?: string;
}

/** The namespace's pods with these labels, as the admin sees them (sorted by name). */
export async function podsOf(kube: Kube, ns: string, labels: Record<string, string>): Promise<StoredPod[]> {
  const selector = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const list = (await admin(
    kube,
    'GET',
    `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`,
  )) as {
    items: {
      metadata: { name: string; uid: string; deletionTimestamp?: string };
      status?: { phase?: string };
    }[];
  };
  return list.items
    .map((p) => ({
      name: p.metadata.name,
      uid: p.metadata.uid,
      deleting: Boolean(p.metadata.deletionTimestamp),
      phase: p.status?.phase,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Deletes a pod at once (grace 0): a kubelet that has stopped its containers, or an operator cleaning up. */
export async function removePod(kube: Kube, ns: string, name: string): Promise<void> {
  await admin(kube, 'DELETE', `/api/v1/namespaces/${ns}/pods/${name}?gracePeriodSeconds=0`).catch(
    (e: Error) => {
      if (!e.message.includes(': 404 ')) throw e;
    },
  );
}

// --- controllers played by the test --------------------------------------------------------------------

/** A loop run beside remediate(): `tick` every `everyMs` until stopped; its first error fails stop(). */
export function controller(tick: () => Promise<void>, everyMs = 20): { stop(): Promise<void> } {
  let running = true;
  let failed: unknown;
  const loop = (async () => {
    while (running) {
      try {
        await tick();
      } catch (e) {
        failed ??= e;
        running = false;
      }
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      if (failed) throw failed;
    },
  };
}

/**
 * The training operator and the kubelets of one PyTorchJob, one step: a kubelet finishes stopping each pod
 * being deleted; a suspended job has all its pods deleted; a running one gets every missing replica back
 * (a new pod, Running). Returns what it did, for the test's timeline.
 */
export async function pytorchOperatorStep(
  kube: Kube,
  ns: string,
  job: string,
  workers = 2,
  /** Told the job's `runPolicy.suspend` as this step read it (what it acts on). */
  saw?: (suspend: boolean | undefined) => void,
): Promise<string[]> {
  const did: string[] = [];
  const stored = await storedJob(kube, ns, 'PyTorchJob', job);
  saw?.(stored.spec.runPolicy?.suspend);
  const suspended = stored.spec.runPolicy?.suspend === true;
  const pods = await podsOf(kube, ns, { [JOB_LABEL]: job });
  for (const p of pods)
    if (p.deleting || suspended) {
      await removePod(kube, ns, p.name);
      did.push(`${suspended ? 'suspended: ' : ''}removed ${p.name}`);
    }
  if (suspended) return did;
  const left = new Set((await podsOf(kube, ns, { [JOB_LABEL]: job })).map((p) => p.name));
  for (const spec of gang(job, workers))
    if (!left.has(spec.name)) {
      await createPod(kube, ns, spec);
      did.push(`created ${spec.name}`);
    }
  return did;
}
