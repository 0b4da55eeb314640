import { describe, expect, it } from 'vitest';
import { eksApi } from '../../lambdas/adapters/platforms/eks/eksApi.js';
import { KubeInputError } from '../../lambdas/adapters/platforms/eks/errors.js';
import { type JobKind, jobKind, suspendPatch } from '../../lambdas/adapters/platforms/eks/jobs.js';
import { type Kube, kubeApi } from '../../lambdas/adapters/platforms/eks/kubeApi.js';
import { labelKey, labelValue, selectorText } from '../../lambdas/adapters/platforms/eks/names.js';

// Names and selectors come from configuration and from what a run reported: anything that is not Kubernetes
// syntax is refused before a request is made (the token is never even asked for), so no `/`, `?`, `&` or `..`
// reaches a path or a query.

/** An API whose every request would be counted: none must be. */
function unreachable(): { api: ReturnType<typeof eksApi>; asked: () => number } {
  let asked = 0;
  const kube: Kube = kubeApi({
    endpoint: 'https://127.0.0.1:9',
    token: async () => {
      asked++;
      return 'never-used';
    },
  });
  return { api: eksApi(kube), asked: () => asked };
}

const BAD_NAMES = [
  '',
  '../secrets',
  'a/b',
  'a?b',
  'a&b',
  'Upper',
  '-lead',
  'trail-',
  'a..b',
  'a b',
  'x'.repeat(254),
];
const BAD_NAMESPACES = [...BAD_NAMES, 'dotted.name', 'x'.repeat(64)];

describe('input checks', () => {
  it('refuses names, namespaces and kinds that are not Kubernetes syntax, sending nothing', async () => {
    const { api, asked } = unreachable();
    for (const bad of BAD_NAMES) {
      await expect(api.getJob('training', 'PyTorchJob', bad)).rejects.toThrow(KubeInputError);
      await expect(api.getNode(bad)).rejects.toThrow(KubeInputError);
      await expect(api.listEvents('training', bad)).rejects.toThrow(KubeInputError);
      await expect(api.podLogTail('training', bad, { lines: 10 })).rejects.toThrow(KubeInputError);
      await expect(api.patchJob('training', 'RayJob', bad, {})).rejects.toThrow(KubeInputError);
    }
    for (const bad of BAD_NAMESPACES) {
      await expect(api.listPods(bad, { app: 'x' })).rejects.toThrow(KubeInputError);
      await expect(api.getJob(bad, 'RayJob', 'job')).rejects.toThrow(KubeInputError);
    }
    await expect(api.getJob('training', 'Deployment' as JobKind, 'job')).rejects.toThrow(/not a job kind/);
    await expect(api.getJob('training', 'constructor' as JobKind, 'job')).rejects.toThrow(/not a job kind/);
    await expect(api.podLogTail('training', 'pod', { container: 'a/b', lines: 1 })).rejects.toThrow(
      KubeInputError,
    );
    expect(asked()).toBe(0);
  });

  it('accepts dotted names and label keys with a prefix', () => {
    expect(labelKey('training.kubeflow.org/job-name')).toBe('training.kubeflow.org/job-name');
    expect(labelKey('app')).toBe('app');
    expect(labelValue('Llama_3.1-8b')).toBe('Llama_3.1-8b');
    expect(labelValue('')).toBe('');
    expect(
      selectorText({
        'training.kubeflow.org/job-name': 'llama',
        'training.kubeflow.org/replica-type': 'worker',
      }),
    ).toBe('training.kubeflow.org/job-name=llama,training.kubeflow.org/replica-type=worker');
  });

  it('refuses a selector that could widen: empty, all-empty values, or operators smuggled into a key or value', async () => {
    const { api, asked } = unreachable();
    const bad: Record<string, string>[] = [
      {},
      { app: '' },
      { app: 'x,other!=y' },
      { 'app=x': 'y' },
      { app: 'x&fieldSelector=metadata.name' },
      { 'Example.com/app': 'x' },
      { '/app': 'x' },
      { app: 'x'.repeat(64) },
      { app: '-x' },
      { 'app in (a,b)': 'x' },
    ];
    for (const selector of bad) {
      expect(() => selectorText(selector)).toThrow(KubeInputError);
      await expect(api.deletePods('training', selector)).rejects.toThrow(KubeInputError);
      await expect(api.listPods('training', selector)).rejects.toThrow(KubeInputError);
    }
    expect(asked()).toBe(0);
  });

  it('refuses a manifest whose kind or namespace is not the one asked for', async () => {
    const { api, asked } = unreachable();
    const manifest = {
      apiVersion: 'ray.io/v1',
      kind: 'RayJob' as const,
      metadata: { name: 'sweep' },
      spec: {},
    };
    await expect(api.createJob('training', 'PyTorchJob', manifest)).rejects.toThrow(
      /is a RayJob, not a PyTorchJob/,
    );
    await expect(
      api.createJob('training', 'RayJob', { ...manifest, metadata: { name: 'sweep', namespace: 'prod' } }),
    ).rejects.toThrow(/namespace prod, not training/);
    await expect(
      api.createJob('training', 'RayJob', { ...manifest, metadata: { name: '../sweep' } }),
    ).rejects.toThrow(KubeInputError);
    expect(asked()).toBe(0);
  });

  it('suspends each kind where its operator looks', () => {
    expect(suspendPatch(jobKind('PyTorchJob'))).toEqual({ spec: { runPolicy: { suspend: true } } });
    expect(suspendPatch(jobKind('RayJob'), false)).toEqual({ spec: { suspend: false } });
  });

  it('takes only an https endpoint and a PEM certificate authority', () => {
    const token = async () => 't';
    expect(() => kubeApi({ endpoint: 'http://127.0.0.1:8080', token })).toThrow(/must be https/);
    expect(() =>
      kubeApi({
        endpoint: 'https://127.0.0.1:6443',
        token,
        certificateAuthority: Buffer.from('not a cert').toString('base64'),
      }),
    ).toThrow(/not a base64 PEM certificate/);
  });

  it("lets a failure to get a token through as it is: it is the credentials', not the cluster's", async () => {
    const kube = kubeApi({
      endpoint: 'https://127.0.0.1:9',
      token: async () => {
        throw new Error('Could not load credentials from any providers');
      },
    });
    const failed = await kube.json({ method: 'GET', path: '/api/v1/nodes/x' }).catch((e: Error) => e);
    expect(failed).toMatchObject({ name: 'Error', message: 'Could not load credentials from any providers' });
  });
});
