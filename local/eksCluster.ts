import { asAdmin, createNamespace, createPod, EKS_RBAC, type Kube, rbacPath } from './kubeServer.js';

/** The namespace the RBAC file grants trainwatch (`training`). */
export const NAMESPACE = EKS_RBAC.find((o) => o.kind === 'Role')!.metadata.namespace!;
export const JOB_LABEL = 'training.kubeflow.org/job-name';
const JOBS = `/apis/kubeflow.org/v1/namespaces/${NAMESPACE}/pytorchjobs`;
const PODS = `/api/v1/namespaces/${NAMESPACE}/pods`;

/** A request as the cluster admin (the operator, the kubelet); `merge`: a merge patch. */
const admin = (kube: Kube, method: string, path: string, body?: unknown, merge = false) =>
  asAdmin(kube, method, path, body, merge ? 'application/merge-patch+json' : undefined);

/** The namespace (with the default ServiceAccount no controller manager makes here) and the RBAC file's objects. */
export async function prepareCluster(kube: Kube): Promise<void> {
  await createNamespace(kube, NAMESPACE);
  for (const o of EKS_RBAC) await asAdmin(kube, 'POST', rbacPath(o), o);
}

const replica = (replicas: number) => ({
  replicas,
  restartPolicy: 'OnFailure',
  template: {
    spec: { containers: [{ name: 'pytorch', image: 'trainer:2.5-cu124', command: ['torchrun'] }] },
  },
});

/** A PyTorchJob of one master and one worker, Running as the training operator reports it. */
export async function createPyTorchJob(kube: Kube, name: string): Promise<void> {
  await admin(kube, 'POST', JOBS, {
    apiVersion: 'kubeflow.org/v1',
    kind: 'PyTorchJob',
    metadata: { name, labels: { team: 'nlp' } },
    spec: {
      runPolicy: { backoffLimit: 3, cleanPodPolicy: 'None' },
      pytorchReplicaSpecs: { Master: replica(1), Worker: replica(1) },
    },
  });
  await setJobCondition(kube, name, 'Running', `PyTorchJob ${name} is running.`);
}

/** The job's latest condition (Running, Failed), as the operator sets it. */
export async function setJobCondition(kube: Kube, name: string, type: string, message: string) {
  const at = new Date().toISOString();
  const created = { type: 'Created', status: 'True', reason: 'PyTorchJobCreated', lastTransitionTime: at };
  const now = { type, status: 'True', reason: `PyTorchJob${type}`, message, lastTransitionTime: at };
  await admin(kube, 'PATCH', `${JOBS}/${name}/status`, { status: { conditions: [created, now] } }, true);
}

/** A container's state as a kubelet reports it: running, or terminated OOMKilled (exit code 137). */
export type ContainerShape = 'running' | 'oomKilled';

function containerStatus(shape: ContainerShape, started: string) {
  const state =
    shape === 'running'
      ? { running: { startedAt: started } }
      : {
          terminated: {
            exitCode: 137,
            reason: 'OOMKilled',
            startedAt: started,
            finishedAt: new Date().toISOString(),
          },
        };
  return {
    name: 'pytorch',
    image: 'trainer:2.5-cu124',
    imageID: '',
    ready: shape === 'running',
    restartCount: 0,
    state,
  };
}

/** The pod of one replica (`{job}-master-0`, `{job}-worker-0`) on its node, with the kubelet's status. */
export async function trainingPod(
  kube: Kube,
  job: string,
  type: 'master' | 'worker',
  shape: ContainerShape = 'running',
): Promise<string> {
  const name = `${job}-${type}-0`;
  const node = `ip-10-0-1-${type === 'master' ? 17 : 18}.ec2.internal`;
  const labels = {
    [JOB_LABEL]: job,
    'training.kubeflow.org/replica-type': type,
    'training.kubeflow.org/replica-index': '0',
  };
  const started = new Date(Date.now() - 60_000).toISOString();
  const phase = shape === 'running' ? 'Running' : 'Failed';
  await createPod(kube, NAMESPACE, {
    name,
    labels,
    node,
    status: { phase, containerStatuses: [containerStatus(shape, started)] },
  });
  return name;
}

/** The job `oom`, whose worker's container was OOMKilled (the job Failed), and the job `hang`, both pods Running. */
export async function seedJobs(kube: Kube, oom: string, hang: string): Promise<void> {
  await createPyTorchJob(kube, oom);
  await trainingPod(kube, oom, 'master');
  await trainingPod(kube, oom, 'worker', 'oomKilled');
  await setJobCondition(
    kube,
    oom,
    'Failed',
    `PyTorchJob ${oom} is failed because 1 Worker replica(s) failed.`,
  );
  await createPyTorchJob(kube, hang);
  await trainingPod(kube, hang, 'master');
  await trainingPod(kube, hang, 'worker');
}

/** RBAC reaches the authorizer through an informer, a moment after it is created: waits until `allowed`. */
export async function rbacInEffect(allowed: () => Promise<unknown>): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return void (await allowed());
    } catch (e) {
      if (i >= 100) throw new Error(`docs/eks-rbac.yaml did not take effect in 10 s: ${e}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * What happens after trainwatch deletes a gang's pods: each kubelet stops its pod (the force delete here
 * stands for that), then the operator creates the job's pods again. Returns the names of the new pods.
 */
export async function recreateGang(kube: Kube, job: string): Promise<string[]> {
  const selector = encodeURIComponent(`${JOB_LABEL}=${job}`);
  await admin(kube, 'DELETE', `${PODS}?labelSelector=${selector}&gracePeriodSeconds=0`);
  return [await trainingPod(kube, job, 'master'), await trainingPod(kube, job, 'worker')];
}
