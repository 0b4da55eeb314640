import { describe, expect, it } from 'vitest';
import type { StackSummary } from '../../../lambdas/core/model/slices/stacks.js';
import type { ContainerState, Pod } from '../../../lambdas/core/remediation/eks/cluster.js';
import { type EksPlace, type EksSettings, eksPlaceOf } from '../../../lambdas/core/remediation/eks/place.js';
import { culpritPod, podLine, podRank } from '../../../lambdas/core/remediation/eks/pods.js';
import { record } from '../../support/fakes.js';

// Where a run on EKS lives (metadata.json `platform`, protocol v1.4, checked against remediation.eks) and
// which of its job's pods to blame. Heartbeat content is untrusted: a bad name is a problem, never a URL.

const SETTINGS: EksSettings = {
  clusters: [
    { name: 'ml-prod', namespaces: ['team-a', 'team-b'] },
    { name: 'ml-dev', namespaces: ['sandbox'] },
  ],
};
const ONE: EksSettings = { clusters: [{ name: 'ml-prod', namespaces: ['team-a'] }] };

const platform = (over: Record<string, unknown> = {}, job: Record<string, unknown> = {}) => ({
  kind: 'eks',
  cluster: 'ml-prod',
  namespace: 'team-a',
  pod: 'llama-master-0',
  node: 'ip-10-0-1-17.ec2.internal',
  job: { kind: 'PyTorchJob', name: 'llama', ...job },
  ...over,
});

describe('eksPlaceOf: where a run on EKS lives', () => {
  it('takes every checked name of a valid platform', () => {
    expect(eksPlaceOf(platform(), SETTINGS)).toEqual({
      place: {
        cluster: 'ml-prod',
        namespace: 'team-a',
        kind: 'PyTorchJob',
        job: 'llama',
        pod: 'llama-master-0',
        node: 'ip-10-0-1-17.ec2.internal',
      },
    });
    expect(
      eksPlaceOf(
        platform({ cluster: 'ml-dev', namespace: 'sandbox' }, { kind: 'RayJob', name: 'tune.v2' }),
        SETTINGS,
      ).place,
    ).toMatchObject({ cluster: 'ml-dev', namespace: 'sandbox', kind: 'RayJob', job: 'tune.v2' });
  });

  it('is not a run on EKS without an object of kind eks', () => {
    for (const p of [undefined, null, 'eks', 42, {}, { kind: 'ec2' }, { ...platform(), kind: 'EKS' }])
      expect(eksPlaceOf(p, SETTINGS)).toEqual({});
  });

  it.each([
    [
      'a job kind it does not act on',
      platform({}, { kind: 'TFJob' }),
      /platform\.job\.kind "TFJob" is not PyTorchJob or RayJob/,
    ],
    ['no job kind', platform({ job: { name: 'llama' } }), /platform\.job\.kind null is not/],
    ['no job at all', platform({ job: undefined }), /platform\.job\.kind null is not/],
    [
      'a job name with capitals',
      platform({}, { name: 'Llama' }),
      /platform\.job\.name is missing or not a Kubernetes name/,
    ],
    ['a job name with a path', platform({}, { name: '../llama' }), /platform\.job\.name/],
    ['a job name with a selector in it', platform({}, { name: 'llama,team!=x' }), /platform\.job\.name/],
    ['a job name of 254 characters', platform({}, { name: 'a'.repeat(254) }), /platform\.job\.name/],
    ['a job name that is not a string', platform({}, { name: 7 }), /platform\.job\.name/],
    [
      'no namespace',
      platform({ namespace: undefined }),
      /platform\.namespace is missing or not a Kubernetes namespace/,
    ],
    [
      'a namespace with dots (a subdomain, not a label)',
      platform({ namespace: 'team.a' }),
      /platform\.namespace/,
    ],
    ['a namespace of 64 characters', platform({ namespace: 'a'.repeat(64) }), /platform\.namespace/],
    ['a namespace with capitals', platform({ namespace: 'Team-A' }), /platform\.namespace/],
    [
      'a cluster name with a slash',
      platform({ cluster: 'ml/prod' }),
      /platform\.cluster is not an EKS cluster name/,
    ],
    [
      'a cluster name starting with a dash',
      platform({ cluster: '-ml' }),
      /platform\.cluster is not an EKS cluster name/,
    ],
  ])('refuses %s, with a line for the alert', (_what, p, problem) => {
    const got = eksPlaceOf(p, SETTINGS);
    expect(got.place).toBeUndefined();
    expect(got.problem).toMatch(problem);
  });

  it('refuses a cluster the configuration does not list, whatever the heartbeat says', () => {
    expect(eksPlaceOf(platform({ cluster: 'ml-staging' }), SETTINGS)).toEqual({
      problem: 'cluster ml-staging is not one trainwatch may act in (remediation.eks.clusters)',
    });
    // Case matters: EKS cluster names are case-sensitive.
    expect(eksPlaceOf(platform({ cluster: 'ML-PROD' }), SETTINGS).problem).toMatch(
      /cluster ML-PROD is not one/,
    );
  });

  it('takes the only configured cluster when metadata.json names none, and refuses to guess among several', () => {
    expect(eksPlaceOf(platform({ cluster: undefined }), ONE).place).toMatchObject({
      cluster: 'ml-prod',
      namespace: 'team-a',
    });
    expect(eksPlaceOf(platform({ cluster: '' }), ONE).place?.cluster).toBe('ml-prod');
    expect(eksPlaceOf(platform({ cluster: undefined }), SETTINGS)).toEqual({
      problem:
        'metadata.json names no cluster and several are configured (set TRAINWATCH_EKS_CLUSTER in the pod)',
    });
    expect(eksPlaceOf(platform(), undefined)).toEqual({
      problem: 'cluster ml-prod is not one trainwatch may act in (remediation.eks.clusters)',
    });
    expect(eksPlaceOf(platform({ cluster: undefined }), { clusters: [] })).toEqual({
      problem: 'no EKS cluster is configured (remediation.eks.clusters)',
    });
  });

  it("refuses a namespace the cluster's configuration does not list, even one another cluster lists", () => {
    expect(eksPlaceOf(platform({ namespace: 'kube-system' }), SETTINGS)).toEqual({
      problem: 'namespace kube-system of cluster ml-prod is not one trainwatch may act in',
    });
    expect(eksPlaceOf(platform({ namespace: 'sandbox' }), SETTINGS).problem).toBe(
      'namespace sandbox of cluster ml-prod is not one trainwatch may act in',
    );
  });

  it('drops a pod or node name that is not a Kubernetes name instead of refusing the run', () => {
    const got = eksPlaceOf(platform({ pod: 'Master 0', node: 'ip_10_0_1_17' }), SETTINGS);
    expect(got.problem).toBeUndefined();
    expect(got.place).toEqual({ cluster: 'ml-prod', namespace: 'team-a', kind: 'PyTorchJob', job: 'llama' });
  });
});

// --- culprit selection ---------------------------------------------------------------------------------

const PLACE: EksPlace = { cluster: 'ml-prod', namespace: 'team-a', kind: 'PyTorchJob', job: 'llama' };
const RUNNING: ContainerState = { state: 'running', startedAt: '2024-05-01T12:01:00Z' };

function pod(
  name: string,
  over: {
    phase?: string;
    reason?: string;
    current?: ContainerState;
    last?: ContainerState;
    restarts?: number;
  } = {},
  type = name.includes('master') ? 'master' : 'worker',
): Pod {
  const index = name.match(/-(\d+)$/)?.[1];
  return {
    name,
    phase: over.phase ?? 'Running',
    nodeName: `node-${name}`,
    labels: {
      'training.kubeflow.org/job-name': 'llama',
      'training.kubeflow.org/replica-type': type,
      ...(index !== undefined && { 'training.kubeflow.org/replica-index': index }),
    },
    ...(over.reason && { reason: over.reason }),
    deleting: false,
    containers: [
      {
        name: 'pytorch',
        ready: (over.current ?? RUNNING).state === 'running',
        restartCount: over.restarts ?? 0,
        current: over.current ?? RUNNING,
        ...(over.last && { last: over.last }),
      },
    ],
  };
}

const OOM: ContainerState = { state: 'terminated', exitCode: 137, reason: 'OOMKilled' };
const ERROR: ContainerState = { state: 'terminated', exitCode: 1, reason: 'Error' };
const BACKOFF: ContainerState = { state: 'waiting', reason: 'CrashLoopBackOff', message: 'back-off 5m0s' };
const CREATING: ContainerState = { state: 'waiting', reason: 'ContainerCreating' };

const oomKilled = pod('llama-worker-3', { phase: 'Failed', current: OOM });
const crashLooping = pod('llama-worker-1', { current: BACKOFF, last: ERROR, restarts: 5 });
const pending = pod('llama-worker-2', { phase: 'Pending', current: CREATING });
const healthy = [pod('llama-master-0'), pod('llama-worker-0'), pod('llama-worker-1'), pod('llama-worker-2')];

/** Every order of `xs` (the API lists pods by name; the ranking must not depend on it). */
function orders<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => orders([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

const stacks = (suspects: number[]): StackSummary => ({
  attempt: 1,
  etags: {},
  text: 'stuck in all_reduce',
  suspects,
  family: 'distributed_timeout',
  waits: {},
});

describe('culpritPod: which pod of the job to blame', () => {
  const rec = record({ state: 'FAILED' });

  it('OOMKilled beats CrashLoopBackOff beats Pending, in whatever order the pods are listed', () => {
    const all = [pod('llama-master-0'), oomKilled, crashLooping, pending];
    for (const o of orders(all)) expect(culpritPod(o, rec, PLACE)?.name).toBe('llama-worker-3');
    for (const o of orders(all.filter((p) => p !== oomKilled)))
      expect(culpritPod(o, rec, PLACE)?.name).toBe('llama-worker-1');
    for (const o of orders([pod('llama-master-0'), pending, pod('llama-worker-0')]))
      expect(culpritPod(o, rec, PLACE)?.name).toBe('llama-worker-2');
  });

  it('counts an OOMKilled last state (the container was restarted since) as OOMKilled', () => {
    const restarted = pod('llama-worker-0', { current: BACKOFF, last: OOM, restarts: 2 });
    for (const o of orders([crashLooping, restarted]))
      expect(culpritPod(o, rec, PLACE)?.name).toBe('llama-worker-0');
  });

  it('a container that exited non-zero beats one crash-looping; an evicted pod beats one pending', () => {
    const exited = pod('llama-worker-4', { phase: 'Failed', current: ERROR });
    expect(culpritPod([crashLooping, exited], rec, PLACE)?.name).toBe('llama-worker-4');
    const evicted = pod('llama-worker-5', { phase: 'Failed', reason: 'Evicted', current: RUNNING });
    expect(culpritPod([pending, evicted], rec, PLACE)?.name).toBe('llama-worker-5');
    // A container that ended with exit code 0 did not die.
    const done = pod('llama-worker-6', {
      phase: 'Succeeded',
      current: { state: 'terminated', exitCode: 0, reason: 'Completed' },
    });
    expect(culpritPod([done, pending], rec, PLACE)?.name).toBe('llama-worker-2');
  });

  it("with every pod healthy, the stacks' first suspect rank names the pod by replica index", () => {
    // With a master, master 0 is rank 0 and worker i is rank i + 1.
    const stalled = record({ state: 'STALLED', facts: { stacks: stacks([2, 0]) } });
    for (const o of orders(healthy)) expect(culpritPod(o, stalled, PLACE)?.name).toBe('llama-worker-1');
    expect(culpritPod(healthy, record({ facts: { stacks: stacks([0]) } }), PLACE)?.name).toBe(
      'llama-master-0',
    );
    // Workers only (elastic, or torchrun with no master replica): worker i is rank i.
    const workers = healthy.filter((p) => !p.name.includes('master'));
    expect(culpritPod(workers, stalled, PLACE)?.name).toBe('llama-worker-2');
  });

  it("a bad pod outranks the stacks' suspect", () => {
    const stalled = record({ state: 'STALLED', facts: { stacks: stacks([1]) } });
    expect(culpritPod([...healthy.slice(0, 2), crashLooping], stalled, PLACE)?.name).toBe('llama-worker-1');
    expect(culpritPod([...healthy, oomKilled], stalled, PLACE)?.name).toBe('llama-worker-3');
  });

  it('falls back to the pod that wrote metadata.json, then the first, when the stacks name no pod', () => {
    const stalled = record({ state: 'STALLED', facts: { stacks: stacks([9]) } });
    const place = { ...PLACE, pod: 'llama-worker-2' };
    expect(culpritPod(healthy, stalled, place)?.name).toBe('llama-worker-2');
    expect(culpritPod(healthy, record(), place)?.name).toBe('llama-worker-2');
    expect(culpritPod(healthy, record(), PLACE)?.name).toBe('llama-master-0');
    expect(culpritPod([], record(), place)).toBeUndefined();
  });

  it('ranks only pods labelled with a replica type and index', () => {
    expect(podRank(pod('llama-master-0'), true)).toBe(0);
    expect(podRank(pod('llama-worker-0'), true)).toBe(1);
    expect(podRank(pod('llama-worker-0'), false)).toBe(0);
    expect(podRank(pod('llama-launcher-0', {}, 'launcher'), true)).toBeUndefined();
    expect(podRank({ ...pod('llama-worker-0'), labels: {} }, true)).toBeUndefined();
  });

  it('says in one line what the culprit shows: pod, node, phase, container state, exit code, restarts', () => {
    expect(podLine(oomKilled)).toBe(
      'pod llama-worker-3 on node node-llama-worker-3 (Failed): container pytorch terminated OOMKilled (exit code 137)',
    );
    expect(podLine(crashLooping)).toBe(
      'pod llama-worker-1 on node node-llama-worker-1 (Running): container pytorch waiting: CrashLoopBackOff, last terminated Error (exit code 1), 5 restarts',
    );
  });
});
