// The cluster the EKS tests read: what a training operator, a kubelet and an event recorder would have
// written, stored by the admin of a real kube-apiserver (test/support/kube.ts), and a stand-in kubelet that
// serves logs.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import {
  asAdmin,
  createNamespace,
  createPod,
  EKS_RBAC,
  type Kube,
  type PodSpec,
  rbacPath,
} from '../support/kube.js';

const RBAC = EKS_RBAC;
export const NS: string = RBAC.find((o) => o.kind === 'Role')!.metadata.namespace!;
export const ELSEWHERE = 'elsewhere';
export const JOB_LABEL = 'training.kubeflow.org/job-name';
export const NODE = 'ip-10-0-1-17.ec2.internal';
export const INSTANCE = 'i-0123456789abcdef0';

/** A request as the cluster admin (allowed everything); an error status throws. */
export const admin = asAdmin;

const mergePatch = (kube: Kube, path: string, body: unknown) =>
  admin(kube, 'PATCH', path, body, 'application/merge-patch+json');

/** A pod in `ns` (default NS), as its operator and kubelet would leave it. */
const pod = (kube: Kube, { ns = NS, ...spec }: PodSpec & { ns?: string }) => createPod(kube, ns, spec);

export const at = (minute: number) => `2024-05-01T12:${String(minute).padStart(2, '0')}:00Z`;

function container(
  state: Record<string, unknown>,
  restartCount: number,
  lastState: Record<string, unknown> = {},
) {
  return {
    name: 'pytorch',
    image: 'trainer:latest',
    imageID: '',
    ready: false,
    restartCount,
    state,
    lastState,
  };
}

/** An HTTPS server on loopback with the API server's own certificate (so the cluster CA vouches for it). */
export async function serveTls(
  kube: Kube,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Server> {
  const certs = join(kube.dir, 'certs');
  const server = createServer(
    { cert: readFileSync(join(certs, 'apiserver.crt')), key: readFileSync(join(certs, 'apiserver.key')) },
    handler,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A stand-in kubelet: answers /containerLogs with the tail of a known log, and notes what was asked. */
export function startKubelet(kube: Kube, requests: URL[]): Promise<Server> {
  const log = Array.from({ length: 100 }, (_, i) => `step ${i + 1} loss ${(2 - i / 100).toFixed(2)}`);
  return serveTls(kube, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    requests.push(url);
    const previous = url.searchParams.get('previous') === 'true';
    const lines = previous ? [...log.slice(0, 40), 'torch.OutOfMemoryError: CUDA out of memory.'] : log;
    const tail = Number(url.searchParams.get('tailLines') ?? lines.length);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`${lines.slice(-tail).join('\n')}\n`);
  });
}

export async function seed(kube: Kube, kubelet: Server): Promise<void> {
  for (const name of [NS, ELSEWHERE]) await createNamespace(kube, name);
  for (const o of RBAC) await admin(kube, 'POST', rbacPath(o), o);

  const port = (kubelet.address() as { port: number }).port;
  await admin(kube, 'POST', '/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: NODE, labels: { 'node.kubernetes.io/instance-type': 'p5.48xlarge' } },
    spec: { providerID: `aws:///us-east-1a/${INSTANCE}`, unschedulable: true },
  });
  await mergePatch(kube, `/api/v1/nodes/${NODE}/status`, {
    status: {
      addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: port } },
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'KubeletNotReady',
          message: 'PLEG is not healthy',
          lastHeartbeatTime: at(5),
          lastTransitionTime: at(4),
        },
        {
          type: 'MemoryPressure',
          status: 'True',
          reason: 'KubeletHasInsufficientMemory',
          message: 'kubelet has insufficient memory available',
          lastHeartbeatTime: at(5),
          lastTransitionTime: at(3),
        },
        {
          type: 'DiskPressure',
          status: 'False',
          reason: 'KubeletHasNoDiskPressure',
          message: 'kubelet has no disk pressure',
          lastHeartbeatTime: at(5),
          lastTransitionTime: at(0),
        },
      ],
    },
  });

  const jobs = `/apis/kubeflow.org/v1/namespaces/${NS}/pytorchjobs`;
  for (const name of ['llama', 'other-job'])
    await admin(kube, 'POST', jobs, {
      apiVersion: 'kubeflow.org/v1',
      kind: 'PyTorchJob',
      metadata: { name, labels: { team: 'research' }, annotations: { 'trainwatch.dev/run': `run-${name}` } },
      spec: {
        runPolicy: { backoffLimit: 3, cleanPodPolicy: 'None' },
        pytorchReplicaSpecs: {
          Master: {
            replicas: 1,
            restartPolicy: 'OnFailure',
            template: { spec: { containers: [{ name: 'pytorch', image: 'trainer:latest' }] } },
          },
          Worker: {
            replicas: 2,
            restartPolicy: 'OnFailure',
            template: { spec: { containers: [{ name: 'pytorch', image: 'trainer:latest' }] } },
          },
        },
      },
    });
  await mergePatch(kube, `${jobs}/llama/status`, {
    status: {
      conditions: [
        {
          type: 'Created',
          status: 'True',
          reason: 'PyTorchJobCreated',
          message: 'PyTorchJob llama is created.',
          lastTransitionTime: at(0),
        },
        { type: 'Running', status: 'False', reason: 'PyTorchJobRunning', lastTransitionTime: at(6) },
        {
          type: 'Failed',
          status: 'True',
          reason: 'PyTorchJobFailed',
          message: 'PyTorchJob llama is failed because 1 Worker replica(s) failed.',
          lastTransitionTime: at(6),
        },
      ],
      replicaStatuses: { Master: { active: 1 }, Worker: { active: 1, failed: 1 } },
    },
  });
  const rayjobs = `/apis/ray.io/v1/namespaces/${NS}/rayjobs`;
  await admin(kube, 'POST', rayjobs, {
    apiVersion: 'ray.io/v1',
    kind: 'RayJob',
    metadata: { name: 'sweep' },
    spec: {
      entrypoint: 'python tune.py',
      shutdownAfterJobFinishes: true,
      rayClusterSpec: { headGroupSpec: {} },
    },
  });
  await mergePatch(kube, `${rayjobs}/sweep/status`, {
    status: {
      jobStatus: 'FAILED',
      jobDeploymentStatus: 'Failed',
      rayClusterName: 'sweep-raycluster-x7k2p',
      message: 'Job entrypoint command failed with exit code 1',
    },
  });

  const llama = { [JOB_LABEL]: 'llama' };
  await pod(kube, {
    name: 'llama-master-0',
    labels: { ...llama, 'training.kubeflow.org/replica-type': 'master' },
    node: NODE,
    status: { phase: 'Running', containerStatuses: [container({ running: { startedAt: at(1) } }, 0)] },
  });
  await pod(kube, {
    name: 'llama-worker-0',
    labels: { ...llama, 'training.kubeflow.org/replica-type': 'worker' },
    node: NODE,
    status: {
      phase: 'Failed',
      containerStatuses: [
        container(
          { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: at(2), finishedAt: at(5) } },
          3,
        ),
      ],
    },
  });
  await pod(kube, {
    name: 'llama-worker-1',
    labels: { ...llama, 'training.kubeflow.org/replica-type': 'worker' },
    node: NODE,
    status: {
      phase: 'Running',
      containerStatuses: [
        container(
          { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' } },
          5,
          { terminated: { exitCode: 1, reason: 'Error', startedAt: at(3), finishedAt: at(4) } },
        ),
      ],
    },
  });
  await pod(kube, {
    name: 'llama-worker-2',
    labels: { ...llama, 'training.kubeflow.org/replica-type': 'worker' },
    status: {
      phase: 'Pending',
      containerStatuses: [
        container(
          {
            terminated: {
              exitCode: 128,
              reason: 'ContainerCannotRun',
              message: 'exec: "torchrun": executable file not found in $PATH',
            },
          },
          0,
        ),
      ],
    },
  });
  await pod(kube, { name: 'other-job-worker-0', labels: { [JOB_LABEL]: 'other-job' }, node: NODE });
  await pod(kube, { name: 'llama-worker-0', ns: ELSEWHERE, labels: llama, node: NODE });

  const event = (name: string, object: string, e: Record<string, unknown>) =>
    admin(kube, 'POST', `/api/v1/namespaces/${NS}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: NS, name: object },
      source: { component: 'kubelet', host: NODE },
      ...e,
    });
  await event('llama-worker-0.oom', 'llama-worker-0', {
    type: 'Warning',
    reason: 'OOMKilling',
    message: 'Memory cgroup out of memory: Killed process 4242 (python)',
    count: 3,
    firstTimestamp: at(2),
    lastTimestamp: at(5),
  });
  await event('llama-worker-0.pulled', 'llama-worker-0', {
    type: 'Normal',
    reason: 'Pulled',
    message: 'Container image "trainer:latest" already present on machine',
    count: 1,
    firstTimestamp: at(1),
    lastTimestamp: at(1),
  });
  await event('llama-worker-1.backoff', 'llama-worker-1', {
    type: 'Warning',
    reason: 'BackOff',
    message: 'Back-off restarting failed container',
    count: 9,
    firstTimestamp: at(3),
    lastTimestamp: at(6),
  });
  // A newer recorder writes through events.k8s.io/v1: eventTime and series, no lastTimestamp or count.
  await admin(kube, 'POST', `/apis/events.k8s.io/v1/namespaces/${NS}/events`, {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'llama-worker-0.evicted' },
    eventTime: '2024-05-01T12:03:00.000000Z',
    reportingController: 'kubelet',
    reportingInstance: NODE,
    action: 'Evicting',
    reason: 'Evicted',
    note: 'The node was low on resource: memory.',
    type: 'Warning',
    regarding: { apiVersion: 'v1', kind: 'Pod', namespace: NS, name: 'llama-worker-0' },
    series: { count: 4, lastObservedTime: '2024-05-01T12:04:00.000000Z' },
  });
}
