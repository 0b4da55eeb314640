import { X509Certificate } from 'node:crypto';
import type { Server } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eksCluster } from '../../lambdas/adapters/platforms/eks/cluster.js';
import { type EksApi, eksApi } from '../../lambdas/adapters/platforms/eks/eksApi.js';
import { KubeApiError } from '../../lambdas/adapters/platforms/eks/errors.js';
import { suspendPatch } from '../../lambdas/adapters/platforms/eks/jobs.js';
import { type Kube as KubeClient, kubeApi } from '../../lambdas/adapters/platforms/eks/kubeApi.js';
import { applyCrds, type Kube, startKube } from '../support/kube.js';
import {
  admin,
  at,
  ELSEWHERE,
  INSTANCE,
  JOB_LABEL,
  NODE,
  NS,
  seed,
  serveTls,
  startKubelet,
} from './cluster.js';
import { expectedSignature, tokenUrl } from './sigv4.js';

// The EKS calls against a real kube-apiserver (test/support/kube.ts): the admin stores a PyTorchJob, a
// RayJob, their pods with the statuses a kubelet would report, events and a node (./cluster.ts); trainwatch's
// calls read them back with a token whose only permissions are docs/eks-rbac.yaml, applied as it is. No
// kubelet runs: a pod's log comes from a stand-in kubelet the test serves, reached by the API server at the
// node's address.

let kube: Kube;
let kubelet: Server;
const kubeletRequests: URL[] = [];
let tw: EksApi;
let twKube: KubeClient;

/** The KubeApiError a call fails with (a success, or another error, fails the test). */
async function failure(call: Promise<unknown>): Promise<KubeApiError> {
  try {
    await call;
  } catch (e) {
    if (e instanceof KubeApiError) return e;
    throw e;
  }
  throw new Error('the call succeeded');
}

/** RBAC reaches the authorizer through an informer: wait until the trainwatch token can list pods. */
async function rbacInPlace(): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await tw.listPods(NS, { [JOB_LABEL]: 'llama' });
      await tw.getNode(NODE);
      return;
    } catch (e) {
      if (i > 100) throw e;
      await sleep(100);
    }
  }
}

beforeAll(async () => {
  const t0 = Date.now();
  kube = await startKube();
  await applyCrds(kube);
  kubelet = await startKubelet(kube, kubeletRequests);
  await seed(kube, kubelet);
  const ca = Buffer.from(kube.ca).toString('base64'); // as EKS gives certificateAuthority.data
  twKube = kubeApi({ endpoint: kube.url, certificateAuthority: ca, token: async () => kube.trainwatchToken });
  tw = eksApi(twKube);
  await rbacInPlace();
  console.log(`kube-apiserver up and seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}, 180_000);

afterAll(async () => {
  kubelet?.close();
  await kube?.stop();
});

describe('EKS calls on a real kube-apiserver, with the documented RBAC', () => {
  it('reads a PyTorchJob: its conditions, suspension and what re-creates it', async () => {
    const job = await tw.getJob(NS, 'PyTorchJob', 'llama');
    expect(job).toMatchObject({ kind: 'PyTorchJob', namespace: NS, name: 'llama', suspended: false });
    expect(job.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(job.conditions.map((c) => [c.type, c.status])).toEqual([
      ['Created', 'True'],
      ['Running', 'False'],
      ['Failed', 'True'],
    ]);
    expect(job.conditions[2]).toMatchObject({ reason: 'PyTorchJobFailed', lastTransitionTime: at(6) });
    expect(job.manifest).toEqual({
      apiVersion: 'kubeflow.org/v1',
      kind: 'PyTorchJob',
      metadata: {
        name: 'llama',
        namespace: NS,
        labels: { team: 'research' },
        annotations: { 'trainwatch.dev/run': 'run-llama' },
      },
      spec: (await admin(kube, 'GET', `/apis/kubeflow.org/v1/namespaces/${NS}/pytorchjobs/llama`)).spec,
    });
  });

  it('reads a RayJob: its job and deployment status and the cluster its pods are labelled with', async () => {
    const job = await tw.getJob(NS, 'RayJob', 'sweep');
    expect(job).toMatchObject({
      kind: 'RayJob',
      name: 'sweep',
      suspended: false,
      jobStatus: 'FAILED',
      deploymentStatus: 'Failed',
      rayClusterName: 'sweep-raycluster-x7k2p',
      message: 'Job entrypoint command failed with exit code 1',
      conditions: [],
    });
  });

  it("lists the job's pods with phase, node, labels and each container's state, exit and restarts", async () => {
    const pods = await tw.listPods(NS, { [JOB_LABEL]: 'llama' });
    const byName = Object.fromEntries(pods.map((p) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual([
      'llama-master-0',
      'llama-worker-0',
      'llama-worker-1',
      'llama-worker-2',
    ]);
    expect(byName['llama-worker-0']).toMatchObject({
      phase: 'Failed',
      nodeName: NODE,
      deleting: false,
      labels: { [JOB_LABEL]: 'llama', 'training.kubeflow.org/replica-type': 'worker' },
      containers: [
        {
          name: 'pytorch',
          ready: false,
          restartCount: 3,
          current: { state: 'terminated', exitCode: 137, reason: 'OOMKilled', finishedAt: at(5) },
        },
      ],
    });
    expect(byName['llama-worker-1']?.containers).toEqual([
      {
        name: 'pytorch',
        ready: false,
        restartCount: 5,
        current: {
          state: 'waiting',
          reason: 'CrashLoopBackOff',
          message: 'back-off 5m0s restarting failed container',
        },
        last: { state: 'terminated', exitCode: 1, reason: 'Error', finishedAt: at(4) },
      },
    ]);
    expect(byName['llama-worker-2']).toMatchObject({
      phase: 'Pending',
      containers: [{ current: { state: 'terminated', exitCode: 128, reason: 'ContainerCannotRun' } }],
    });
    expect(byName['llama-worker-2']?.nodeName).toBeUndefined();
    expect(byName['llama-master-0']?.containers[0]?.current).toEqual({ state: 'running', startedAt: at(1) });
    // Two selectors' requirements are ANDed.
    const workers = await tw.listPods(NS, {
      [JOB_LABEL]: 'llama',
      'training.kubeflow.org/replica-type': 'master',
    });
    expect(workers.map((p) => p.name)).toEqual(['llama-master-0']);
  });

  it('lists the events of one object only, oldest first, with their counts, whichever API wrote them', async () => {
    const events = await tw.listEvents(NS, 'llama-worker-0');
    expect(events).toEqual([
      {
        type: 'Normal',
        reason: 'Pulled',
        message: 'Container image "trainer:latest" already present on machine',
        count: 1,
        lastTimestamp: at(1),
        objectKind: 'Pod',
      },
      {
        type: 'Warning',
        reason: 'Evicted',
        message: 'The node was low on resource: memory.',
        count: 4,
        lastTimestamp: '2024-05-01T12:04:00.000000Z',
        objectKind: 'Pod',
      },
      {
        type: 'Warning',
        reason: 'OOMKilling',
        message: 'Memory cgroup out of memory: Killed process 4242 (python)',
        count: 3,
        lastTimestamp: at(5),
        objectKind: 'Pod',
      },
    ]);
    expect((await tw.listEvents(NS, 'llama-worker-1')).map((e) => [e.reason, e.count])).toEqual([
      ['BackOff', 9],
    ]);
    expect(await tw.listEvents(NS, 'no-such-pod')).toEqual([]);
  });

  it("reads a node's conditions, its cordon and the EC2 instance behind it", async () => {
    const node = await tw.getNode(NODE);
    expect(node).toMatchObject({ name: NODE, unschedulable: true, instanceId: INSTANCE });
    expect(node.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Ready', 'False', 'KubeletNotReady'],
      ['MemoryPressure', 'True', 'KubeletHasInsufficientMemory'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
    ]);
    expect(node.conditions[0]).toMatchObject({ message: 'PLEG is not healthy', lastHeartbeatTime: at(5) });
  });

  it("tails a container's log through the API server, from the node's kubelet, the crashed run's too", async () => {
    kubeletRequests.length = 0;
    const tail = await tw.podLogTail(NS, 'llama-worker-1', { container: 'pytorch', lines: 3 });
    expect(tail).toBe('step 98 loss 1.03\nstep 99 loss 1.02\nstep 100 loss 1.01\n');
    const previous = await tw.podLogTail(NS, 'llama-worker-1', { lines: 2, previous: true });
    expect(previous).toBe('step 40 loss 1.61\ntorch.OutOfMemoryError: CUDA out of memory.\n');
    expect(kubeletRequests.map((u) => `${u.pathname}?${u.searchParams}`)).toEqual([
      `/containerLogs/${NS}/llama-worker-1/pytorch?limitBytes=262144&tailLines=3`,
      `/containerLogs/${NS}/llama-worker-1/pytorch?limitBytes=262144&previous=true&tailLines=2`,
    ]);
    const missing = await failure(tw.podLogTail(NS, 'llama-worker-1', { container: 'sidecar', lines: 1 }));
    expect(missing).toBeInstanceOf(KubeApiError);
    expect(missing).toMatchObject({ status: 400, reason: 'BadRequest' });
    expect(missing.message).toMatch(/container sidecar is not valid for pod llama-worker-1/);
  });

  it('suspends a PyTorchJob and a RayJob by merge patch, keeping the rest of the spec', async () => {
    const before = await admin(kube, 'GET', `/apis/kubeflow.org/v1/namespaces/${NS}/pytorchjobs/other-job`);
    const job = await tw.patchJob(NS, 'PyTorchJob', 'other-job', suspendPatch('PyTorchJob'));
    expect(job.suspended).toBe(true);
    const after = await admin(kube, 'GET', `/apis/kubeflow.org/v1/namespaces/${NS}/pytorchjobs/other-job`);
    const spec = before.spec as { runPolicy: object };
    expect(after.spec).toEqual({ ...spec, runPolicy: { ...spec.runPolicy, suspend: true } });
    expect(
      (await tw.patchJob(NS, 'PyTorchJob', 'other-job', suspendPatch('PyTorchJob', false))).suspended,
    ).toBe(false);

    const ray = await tw.patchJob(NS, 'RayJob', 'sweep', suspendPatch('RayJob'));
    expect(ray.suspended).toBe(true);
    expect((await admin(kube, 'GET', `/apis/ray.io/v1/namespaces/${NS}/rayjobs/sweep`)).spec).toMatchObject({
      suspend: true,
      entrypoint: 'python tune.py',
    });
  });

  it('re-creates a deleted job from the manifest it read', async () => {
    const job = await tw.getJob(NS, 'PyTorchJob', 'llama');
    await admin(kube, 'DELETE', `/apis/kubeflow.org/v1/namespaces/${NS}/pytorchjobs/llama`);
    const gone = await failure(tw.getJob(NS, 'PyTorchJob', 'llama'));
    expect(gone).toMatchObject({ name: 'KubeApiError', status: 404, reason: 'NotFound' });

    const created = await tw.createJob(NS, 'PyTorchJob', job.manifest);
    expect(created.uid).not.toBe(job.uid);
    expect(created.manifest).toEqual(job.manifest);
    expect(created.conditions).toEqual([]); // a new job: its operator has not seen it yet
    const again = await failure(tw.createJob(NS, 'PyTorchJob', job.manifest));
    expect(again).toMatchObject({ status: 409, reason: 'AlreadyExists' });
  });

  it("deletes exactly the job's pods in one call: not another job's, not another namespace's", async () => {
    const deleted = await tw.deletePods(NS, { [JOB_LABEL]: 'llama' });
    expect(deleted.sort()).toEqual(['llama-master-0', 'llama-worker-0', 'llama-worker-1', 'llama-worker-2']);
    // A failed or unscheduled pod goes at once; a running one waits for its kubelet (none here) to stop it.
    const left = await tw.listPods(NS, { [JOB_LABEL]: 'llama' });
    expect(left.map((p) => [p.name, p.deleting]).sort()).toEqual([
      ['llama-master-0', true],
      ['llama-worker-1', true],
    ]);
    // Without a grace period nothing waits.
    await tw.deletePods(NS, { [JOB_LABEL]: 'llama' }, { gracePeriodSeconds: 0 });
    expect(await tw.listPods(NS, { [JOB_LABEL]: 'llama' })).toEqual([]);

    expect((await tw.listPods(NS, { [JOB_LABEL]: 'other-job' })).map((p) => [p.name, p.deleting])).toEqual([
      ['other-job-worker-0', false],
    ]);
    const elsewhere = (await admin(kube, 'GET', `/api/v1/namespaces/${ELSEWHERE}/pods`)) as {
      items: unknown[];
    };
    expect(elsewhere.items).toHaveLength(1);
    // A selector matching nothing deletes nothing.
    expect(await tw.deletePods(NS, { [JOB_LABEL]: 'no-such-job' })).toEqual([]);
  });

  it('is refused what the Role does not grant, with an error naming the status and the verb', async () => {
    const jobPath = `/apis/kubeflow.org/v1/namespaces/${NS}/pytorchjobs/other-job`;
    const refused = await failure(twKube.json({ method: 'DELETE', path: jobPath }));
    expect(refused).toBeInstanceOf(KubeApiError);
    expect(refused).toMatchObject({
      status: 403,
      reason: 'Forbidden',
      method: 'DELETE',
      path: jobPath,
      retryable: false,
    });
    expect(refused.message).toContain(`Kubernetes DELETE ${jobPath}: 403 Forbidden: `);
    expect(refused.message).toContain(
      'User "trainwatch-remediation" cannot delete resource "pytorchjobs" in API group "kubeflow.org"',
    );
    expect((await admin(kube, 'GET', jobPath)).metadata).toMatchObject({ name: 'other-job' });

    // Reading one pod by name (get), listing all nodes, anything in another namespace: not granted either.
    const forbidden = async (call: Promise<unknown>) =>
      expect(await failure(call)).toMatchObject({ status: 403, reason: 'Forbidden' });
    await forbidden(twKube.json({ method: 'GET', path: `/api/v1/namespaces/${NS}/pods/other-job-worker-0` }));
    await forbidden(twKube.json({ method: 'GET', path: '/api/v1/nodes' }));
    await forbidden(twKube.json({ method: 'GET', path: `/api/v1/namespaces/${NS}/secrets` }));
    await forbidden(tw.listPods(ELSEWHERE, { [JOB_LABEL]: 'llama' }));
    await forbidden(tw.deletePods(ELSEWHERE, { [JOB_LABEL]: 'llama' }));
    await forbidden(tw.getJob(ELSEWHERE, 'PyTorchJob', 'llama'));

    // Someone outside the group gets nothing the Role grants.
    const other = eksApi(
      kubeApi({ endpoint: kube.url, certificateAuthority: kube.ca, token: async () => kube.otherToken }),
    );
    await forbidden(other.getJob(NS, 'PyTorchJob', 'other-job'));
    await forbidden(other.getNode(NODE));
  });

  it('asks for a fresh token once when the server answers 401, and says Unauthorized when that fails too', async () => {
    const asked: boolean[] = [];
    const renewing = eksApi(
      kubeApi({
        endpoint: kube.url,
        certificateAuthority: kube.ca,
        token: async (fresh = false) => {
          asked.push(fresh);
          return fresh ? kube.trainwatchToken : 'expired-token';
        },
      }),
    );
    expect((await renewing.getNode(NODE)).name).toBe(NODE);
    expect(asked).toEqual([false, true]);

    const never = kubeApi({
      endpoint: kube.url,
      certificateAuthority: kube.ca,
      token: async () => 'not-a-token',
    });
    const refused = await failure(never.json({ method: 'GET', path: `/api/v1/nodes/${NODE}` }));
    expect(refused).toMatchObject({ name: 'KubeApiError', status: 401, reason: 'Unauthorized' });
  });

  it("checks the server's certificate against the cluster CA, and refuses one another CA signed", async () => {
    const token = async () => kube.trainwatchToken;
    const path = `/api/v1/nodes/${NODE}`;
    // The CA as PEM works as well as base64; a public root CA does not vouch for this server.
    expect(
      await kubeApi({ endpoint: kube.url, certificateAuthority: kube.ca, token }).json({
        method: 'GET',
        path,
      }),
    ).toMatchObject({ metadata: { name: NODE } });
    const stranger = rootCertificates[0]!;
    expect(new X509Certificate(stranger).checkIssued(new X509Certificate(kube.ca))).toBe(false);
    const refused = await failure(
      kubeApi({ endpoint: kube.url, certificateAuthority: stranger, token }).json({ method: 'GET', path }),
    );
    expect(refused).toBeInstanceOf(KubeApiError);
    expect(refused.status).toBeUndefined();
    expect(refused.retryable).toBe(true);
    expect(refused.message).toMatch(/no answer: .*certificate/i);
    // Without any CA the system roots are used, which do not know this server either; only a test skips the
    // check.
    await expect(kubeApi({ endpoint: kube.url, token }).json({ method: 'GET', path })).rejects.toThrow(
      /certificate/i,
    );
    expect(
      await kubeApi({ endpoint: kube.url, token, insecure: true }).json({ method: 'GET', path }),
    ).toMatchObject({ kind: 'Node' });
  });

  it('says when the server is not there', async () => {
    const gone = kubeApi({
      endpoint: 'https://127.0.0.1:9',
      certificateAuthority: kube.ca,
      token: async () => 't',
      timeoutMs: 2000,
    });
    const refused = await failure(gone.json({ method: 'GET', path: '/api/v1/nodes/x' }));
    expect(refused).toMatchObject({ name: 'KubeApiError', status: undefined, retryable: true });
    expect(refused.message).toMatch(/ECONNREFUSED/);
  });
});

describe('eksCluster, from the configuration', () => {
  it('signs a token with the default credential chain and sends it to the endpoint, trusting only the CA', async () => {
    const seen: string[] = [];
    const apiServer = await serveTls(kube, (req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ kind: 'Node', metadata: { name: 'n1' }, spec: {}, status: { conditions: [] } }),
      );
    });
    try {
      const port = (apiServer.address() as { port: number }).port;
      const api = eksCluster({
        name: 'training-prod',
        endpoint: `https://127.0.0.1:${port}`,
        certificateAuthority: Buffer.from(kube.ca).toString('base64'),
        region: 'us-west-2',
      });
      expect(await api.getNode('n1')).toEqual({ name: 'n1', conditions: [], unschedulable: false });
      expect(await api.getNode('n1')).toMatchObject({ name: 'n1' });
      const [first, second] = seen.map((s) => s.split(' '));
      expect(first?.slice(0, 3)).toEqual(['GET', '/api/v1/nodes/n1', 'Bearer']);
      expect(second?.[3]).toBe(first?.[3]); // the token is reused
      const url = tokenUrl(first?.[3] ?? '');
      // vitest.config.ts sets the environment's dummy keys: the SDK's default chain found them.
      const keys = {
        id: process.env.AWS_ACCESS_KEY_ID ?? '',
        secret: process.env.AWS_SECRET_ACCESS_KEY ?? '',
      };
      expect(url.host).toBe('sts.us-west-2.amazonaws.com');
      expect(url.searchParams.get('X-Amz-Credential')).toMatch(
        new RegExp(`^${keys.id}/\\d{8}/us-west-2/sts/aws4_request$`),
      );
      expect(url.searchParams.get('X-Amz-Signature')).toBe(
        expectedSignature(url, 'training-prod', keys.secret),
      );
    } finally {
      apiServer.close();
    }
  });

  it('refuses a cluster name EKS would not have', () => {
    const config = { endpoint: kube.url, certificateAuthority: kube.ca, region: 'us-east-1' };
    expect(() => eksCluster({ ...config, name: 'a/b' })).toThrow(/not an EKS cluster name/);
    expect(() => eksCluster({ ...config, name: '' })).toThrow(/not an EKS cluster name/);
  });
});
