// The real kube-apiserver (test/support/kube.ts) that remediation against Kubernetes is tested on: static tokens,
// RBAC, and the training-job CRDs. Checks that the server enforces what trainwatch's RBAC docs will promise.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyCrds, type Kube, type KubeResponse, kubeRequest, startKube } from '../support/kube.js';

let kube: Kube;
const ns = `tw-${randomBytes(4).toString('hex')}`;
const pods = `/api/v1/namespaces/${ns}/pods`;

const as = (token: string, method: string, path: string, body?: unknown, contentType?: string) =>
  kubeRequest(kube, token, method, path, body, contentType);

/** RBAC reaches the authorizer through an informer: retry briefly until the expected status shows. */
async function eventually(status: number, call: () => Promise<KubeResponse>): Promise<KubeResponse> {
  let res = await call();
  for (let i = 0; res.status !== status && i < 50; i++) {
    await sleep(100);
    res = await call();
  }
  return res;
}

beforeAll(async () => {
  const t0 = Date.now();
  kube = await startKube();
  const t1 = Date.now();
  await applyCrds(kube);
  console.log(
    `kube-apiserver ready in ${((t1 - t0) / 1000).toFixed(1)} s, CRDs established in ${((Date.now() - t1) / 1000).toFixed(1)} s (${kube.url})`,
  );
  const created = await as(kube.adminToken, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}, 120_000);

afterAll(async () => {
  await kube?.stop();
});

describe('real kube-apiserver', () => {
  it('lets the admin create a PyTorchJob, keeping unknown spec fields, with a status subresource', async () => {
    const path = `/apis/kubeflow.org/v1/namespaces/${ns}/pytorchjobs`;
    const job = {
      apiVersion: 'kubeflow.org/v1',
      kind: 'PyTorchJob',
      metadata: { name: 'llama-ft' },
      spec: { pytorchReplicaSpecs: { Worker: { replicas: 2, template: { spec: { containers: [] } } } } },
    };
    const created = await as(kube.adminToken, 'POST', path, job);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.spec).toEqual(job.spec);

    // status goes through /status only: a status in the main resource's update is dropped.
    const patched = await as(
      kube.adminToken,
      'PATCH',
      `${path}/llama-ft/status`,
      { status: { conditions: [{ type: 'Running', status: 'True' }] } },
      'application/merge-patch+json',
    );
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const got = await as(kube.adminToken, 'GET', `${path}/llama-ft`);
    expect(got.body.status).toEqual({ conditions: [{ type: 'Running', status: 'True' }] });
    expect(got.body.spec).toEqual(job.spec);

    const ray = await as(kube.adminToken, 'POST', `/apis/ray.io/v1/namespaces/${ns}/rayjobs`, {
      apiVersion: 'ray.io/v1',
      kind: 'RayJob',
      metadata: { name: 'sweep' },
      spec: { entrypoint: 'python train.py' },
    });
    expect(ray.status, JSON.stringify(ray.body)).toBe(201);
  });

  it('refuses an unknown token and, without a binding, the trainwatch token', async () => {
    expect((await as('not-a-token', 'GET', pods)).status).toBe(401);
    const denied = await as(kube.trainwatchToken, 'GET', pods);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect(String(denied.body.message)).toContain('"trainwatch-remediation"');
    expect((await as(kube.otherToken, 'GET', pods)).status).toBe(403);
  });

  it('grants the trainwatch group exactly what its Role says: list pods, not delete them', async () => {
    const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}`;
    const role = await as(kube.adminToken, 'POST', `${rbac}/roles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'trainwatch-read-pods' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    });
    expect(role.status, JSON.stringify(role.body)).toBe(201);
    const binding = await as(kube.adminToken, 'POST', `${rbac}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'trainwatch-read-pods' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'trainwatch-read-pods' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'trainwatch:remediation' }],
    });
    expect(binding.status, JSON.stringify(binding.body)).toBe(201);

    // A pod to delete. No controller manager runs, so the namespace's default ServiceAccount, which the
    // ServiceAccount admission plugin looks up, is created by hand; no scheduler either: the pod stays Pending.
    const sa = await as(kube.adminToken, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'default' },
    });
    expect([201, 409], JSON.stringify(sa.body)).toContain(sa.status);
    const pod = await as(kube.adminToken, 'POST', pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'worker-0', labels: { 'training.kubeflow.org/job-name': 'llama-ft' } },
      spec: {
        automountServiceAccountToken: false,
        containers: [{ name: 'pytorch', image: 'trainer:latest' }],
      },
    });
    expect(pod.status, JSON.stringify(pod.body)).toBe(201);

    const listed = await eventually(200, () => as(kube.trainwatchToken, 'GET', pods));
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.kind).toBe('PodList');
    expect((listed.body.items as { metadata: { name: string } }[]).map((p) => p.metadata.name)).toEqual([
      'worker-0',
    ]);
    expect((await as(kube.trainwatchToken, 'GET', `${pods}/worker-0`)).status).toBe(200);

    const del = await as(kube.trainwatchToken, 'DELETE', `${pods}/worker-0`);
    expect(del.status).toBe(403);
    expect(String(del.body.message)).toContain('cannot delete resource "pods"');
    expect((await as(kube.trainwatchToken, 'DELETE', pods)).status).toBe(403); // deletecollection
    expect((await as(kube.adminToken, 'GET', `${pods}/worker-0`)).status).toBe(200);

    // The binding names the group, not every authenticated user; nor does it reach other namespaces.
    expect((await as(kube.otherToken, 'GET', pods)).status).toBe(403);
    expect((await as(kube.trainwatchToken, 'GET', '/api/v1/namespaces/default/pods')).status).toBe(403);
  });
});
