import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eksApi } from '../../lambdas/adapters/platforms/eks/eksApi.js';
import { kubeApi } from '../../lambdas/adapters/platforms/eks/kubeApi.js';
import { classifyDetailed } from '../../lambdas/core/classify/index.js';
import type { CommandRunner } from '../../lambdas/core/model/ports.js';
import type { StackSummary } from '../../lambdas/core/model/slices/stacks.js';
import type { EksApi } from '../../lambdas/core/remediation/eks/types.js';
import {
  type RemediationDeps,
  type RemediationOutcome,
  type RestartPolicy,
  remediate,
} from '../../lambdas/core/remediation/index.js';
import { POLICY_PRESETS } from '../../lambdas/core/remediation/policy/index.js';
import {
  FakeRunStore,
  FakeStateStore,
  NO_WAIT,
  RecordingNotifier,
  type RecordOverrides,
  record,
  recordingArchive,
} from '../support/fakes.js';
import { applyCrds, type Kube, startKube } from '../support/kube.js';
import { admin, serveTls } from './cluster.js';
import {
  container,
  controller,
  createPod,
  gang,
  JOB_LABEL,
  jobExists,
  jobStatus,
  NODES,
  NS,
  podsOf,
  prepare,
  pytorchJob,
  pytorchOperatorStep,
  RAY_CLUSTER,
  RESTRICTED,
  RUNNING,
  rayJob,
  rayPods,
  removePod,
  storedJob,
  UNLISTED,
} from './training.js';

// Issue 33 end to end: the real remediate() (core/remediation) acting on runs that live in PyTorchJobs and
// RayJobs of a real kube-apiserver, through the real adapter (lambdas/adapters/platforms/eks) with a token whose
// only permissions are docs/eks-rbac.yaml. The test plays what no control plane here runs: the training
// operator, KubeRay and the kubelets (./training.ts). The run store, state store and notifier are in memory
// (test/support/fakes.ts); SSM must never be called for a run on EKS.

const CLUSTER = 'ml-prod';
const NOW = Date.parse('2024-05-01T13:00:00Z');
const TRANSIENT = POLICY_PRESETS.get('transient')!;
/** The transient preset, restarting at once (the backoff has its own test). */
const RESTARTS: RestartPolicy = { ...TRANSIENT, backoff: { initial_seconds: 0, factor: 2, max_seconds: 0 } };
/** Restarts everything a restart could fix (unknown crashes included), never what is not restartable. */
const AGGRESSIVE = POLICY_PRESETS.get('aggressive')!;
const NCCL =
  '[rank1]:[E501 12:42:17.123456 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5621, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600039 milliseconds before timing out.';

let kube: Kube;
let kubelet: Server;
/** What the stand-in kubelet was asked for (`/containerLogs/{ns}/{pod}/{container}?…`). */
const logRequests: URL[] = [];
/** A container's log, by `ns/pod/container`; the rest get a healthy one. */
const logs = new Map<string, string>();
let tw: EksApi;

const healthyLog = Array.from(
  { length: 60 },
  (_, i) => `step ${4751 + i} loss ${(1.99 - i / 1000).toFixed(3)}`,
).join('\n');

function serveLogs(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'https://kubelet');
  logRequests.push(url);
  const [, kind, ns, pod, name] = url.pathname.split('/');
  if (kind !== 'containerLogs') return void res.writeHead(404).end();
  const lines = (logs.get(`${ns}/${pod}/${name}`) ?? healthyLog).split('\n');
  const tail = Number(url.searchParams.get('tailLines') ?? lines.length);
  res.writeHead(200, { 'content-type': 'text/plain' }).end(`${lines.slice(-tail).join('\n')}\n`);
}

beforeAll(async () => {
  const t0 = Date.now();
  kube = await startKube();
  await applyCrds(kube);
  kubelet = await serveTls(kube, serveLogs);
  await prepare(kube, (kubelet.address() as { port: number }).port);
  tw = eksApi(
    kubeApi({
      endpoint: kube.url,
      certificateAuthority: Buffer.from(kube.ca).toString('base64'),
      token: async () => kube.trainwatchToken,
    }),
  );
  // RBAC reaches the authorizer through an informer: wait until the token may read in both namespaces.
  for (let i = 0; ; i++) {
    try {
      await tw.listPods(NS, { [JOB_LABEL]: 'x' });
      await tw.listPods(RESTRICTED, { [JOB_LABEL]: 'x' });
      await tw.getNode(NODES[0]!);
      break;
    } catch (e) {
      if (i > 100) throw e;
      await sleep(100);
    }
  }
  console.log(`kube-apiserver up, RBAC bound, in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}, 180_000);

afterAll(async () => {
  kubelet?.close();
  await kube?.stop();
});

/** The calls made through the API, `name(args…)` each, for "nothing else was asked" assertions. */
function recorded(api: EksApi, calls: string[]): EksApi {
  const out: Record<string, unknown> = {};
  for (const [name, call] of Object.entries(api) as [string, (...a: unknown[]) => Promise<unknown>][])
    out[name] = (...args: unknown[]) => {
      calls.push(`${name}(${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(', ')})`);
      return call(...args);
    };
  return out as unknown as EksApi;
}

interface RunOptions {
  runId: string;
  state: 'FAILED' | 'STALLED';
  kind?: 'PyTorchJob' | 'RayJob';
  job: string;
  ns?: string;
  /** The cluster metadata.json names. @default CLUSTER */
  cluster?: string;
  pod?: string;
  policy: RestartPolicy;
  gangRestart?: 'pods' | 'suspend';
  error?: string;
  rec?: RecordOverrides;
  /** The wait between checks of a suspend (2 s in production). @default 100 ms */
  sleepMs?: number;
}

/** A run whose metadata.json names its job, stored as the sweep left it, and the deps remediation gets. */
function world(o: RunOptions) {
  const runs = new FakeRunStore();
  runs.put(
    o.runId,
    'metadata',
    {
      run_id: o.runId,
      job_name: o.job,
      platform: {
        kind: 'eks',
        cluster: o.cluster ?? CLUSTER,
        namespace: o.ns ?? NS,
        pod: o.pod ?? `${o.job}-master-0`,
        node: NODES[0],
        job: { kind: o.kind ?? 'PyTorchJob', name: o.job },
      },
    },
    NOW - 30_000,
  );
  if (o.error) runs.put(o.runId, 'error', o.error, NOW - 20_000);
  const states = new FakeStateStore();
  states.seed(
    record({
      runId: o.runId,
      state: o.state,
      reason: o.state === 'STALLED' ? 'no progress for 45 min' : 'failed',
      errorType: null,
      ...o.rec,
      facts: { step: 4810, stepAdvancedAt: NOW - 45 * 60_000, ...o.rec?.facts },
    }),
  );
  const slack = new RecordingNotifier('slack');
  const calls: string[] = [];
  const clusters: string[] = [];
  const ssm: string[] = [];
  const archived: string[] = [];
  const noSsm: CommandRunner = {
    run: async (r) => {
      ssm.push(r.document);
      throw new Error('SSM called for a run on EKS');
    },
    runOnEach: async (r) => {
      ssm.push(r.document);
      throw new Error('SSM called for a run on EKS');
    },
  };
  const deps: RemediationDeps = {
    runs,
    states,
    commands: noSsm,
    archive: recordingArchive(archived),
    notifiers: [slack],
    links: { bucket: 'b', prefix: 'training-runs', region: 'us-east-1' },
    settings: {
      diagnoseDocument: 'diag',
      restartDocument: 'restart',
      policy: o.policy,
      profile: 'production',
      commands: {},
      eks: { clusters: [{ name: CLUSTER, namespaces: [NS, RESTRICTED] }], gangRestart: o.gangRestart },
    },
    classify: classifyDetailed,
    owner: 'test',
    deliverOptions: NO_WAIT,
    eks: async (cluster) => {
      clusters.push(cluster);
      if (cluster !== CLUSTER) throw new Error(`no cluster ${cluster}`);
      return recorded(tw, calls);
    },
    sleep: (ms) => sleep(o.sleepMs ?? Math.min(ms, 100)),
  };
  const run = (): Promise<RemediationOutcome> =>
    remediate(deps, { runId: o.runId, state: o.state, alertId: `${o.runId}:3:transition` }, NOW);
  return { deps, states, slack, calls, clusters, ssm, archived, run };
}

const text = (out: RemediationOutcome) => (out.alert?.details ?? []).join('\n');
const writes = (calls: string[]) => calls.filter((c) => /^(deletePods|patchJob|createJob)\(/.test(c));

describe('remediating runs on EKS against a real kube-apiserver (issue 33)', () => {
  it('diagnoses a worker OOMKilled (exit 137): names the pod, the exit and the node; the policy does not restart it', async () => {
    await pytorchJob(kube, 'llm-oom');
    const [master, w0, w1] = gang('llm-oom');
    await createPod(kube, NS, master!);
    await createPod(kube, NS, w0!);
    await createPod(kube, NS, {
      ...w1!,
      status: {
        phase: 'Failed',
        containerStatuses: [
          container({
            terminated: {
              exitCode: 137,
              reason: 'OOMKilled',
              startedAt: '2024-05-01T12:01:00Z',
              finishedAt: '2024-05-01T12:55:00Z',
            },
          }),
        ],
      },
    });
    // The cgroup's OOM killer stops the process mid-step: its log just ends.
    logs.set(`${NS}/llm-oom-worker-1/pytorch`, healthyLog);
    const before = await podsOf(kube, NS, { [JOB_LABEL]: 'llm-oom' });
    const jobBefore = await storedJob(kube, NS, 'PyTorchJob', 'llm-oom');

    const w = world({ runId: 'oom', state: 'FAILED', job: 'llm-oom', policy: AGGRESSIVE });
    const out = await w.run();

    // A Kubernetes OOMKilled is the container's memory cgroup (host RAM), not CUDA: cpu_oom_killed.
    expect(out.errorType).toBe('cpu_oom_killed');
    expect(out.diagnosis![0]).toBe(
      `pod llm-oom-worker-1 on node ${NODES[0]} (Failed): container pytorch terminated OOMKilled (exit code 137)`,
    );
    expect(out.diagnosis).toContain('2 of 3 pods Running');
    expect(out.decision).toMatchObject({ action: 'alert', mode: 'crash' });
    expect(out.decision!.reason).toBe(
      'not restarting: policy aggressive (crash): cpu_oom_killed is excluded',
    );
    const alert = text(out);
    expect(alert).toContain('error type: cpu_oom_killed');
    expect(alert).toMatch(/matched line \d+: container OOMKilled \(exit code 137\)/);
    expect(alert).toContain(
      `diagnosis: pod llm-oom-worker-1 on node ${NODES[0]} (Failed): container pytorch terminated OOMKilled (exit code 137)`,
    );
    expect(w.slack.sent).toHaveLength(1);
    expect(w.slack.sent[0]!.offersRestart).toBeUndefined();
    // The culprit's own log tail was read (its current run: the container is not restarted).
    expect(
      logRequests.some(
        (u) =>
          u.pathname === `/containerLogs/${NS}/llm-oom-worker-1/pytorch` &&
          u.searchParams.get('tailLines') === '40',
      ),
    ).toBe(true);

    // Only reads: nothing deleted, patched or created; the run stays FAILED with the type recorded.
    expect(writes(w.calls)).toEqual([]);
    expect(w.calls).toContain(`getNode(${NODES[0]})`);
    expect(await podsOf(kube, NS, { [JOB_LABEL]: 'llm-oom' })).toEqual(before);
    expect((await storedJob(kube, NS, 'PyTorchJob', 'llm-oom')).metadata.resourceVersion).toBe(
      jobBefore.metadata.resourceVersion,
    );
    const rec = (await w.states.get('oom'))!;
    expect(rec).toMatchObject({ state: 'FAILED', attempt: 1, errorType: 'cpu_oom_killed' });
    expect(rec.remediation?.history.at(-1)).toMatchObject({ action: 'alert', errorType: 'cpu_oom_killed' });
    expect(JSON.parse(rec.remediation!.savedJob!)).toMatchObject({
      kind: 'PyTorchJob',
      metadata: { name: 'llm-oom' },
    });
    expect(w.ssm).toEqual([]);
  });

  it('names every pod in trouble, worst first: the OOMKilled culprit, then a crash-looping one', async () => {
    await pytorchJob(kube, 'llm-two');
    const [master, w0, w1] = gang('llm-two');
    await createPod(kube, NS, master!);
    await createPod(kube, NS, {
      ...w0!,
      status: {
        phase: 'Running',
        containerStatuses: [
          container({ waiting: { reason: 'CrashLoopBackOff' } }, 2, {
            terminated: { exitCode: 1, reason: 'Error' },
          }),
        ],
      },
    });
    await createPod(kube, NS, {
      ...w1!,
      status: {
        phase: 'Failed',
        containerStatuses: [container({ terminated: { exitCode: 137, reason: 'OOMKilled' } })],
      },
    });
    const w = world({ runId: 'two', state: 'FAILED', job: 'llm-two', policy: AGGRESSIVE });
    const out = await w.run();

    expect(out.diagnosis!.slice(0, 2)).toEqual([
      `pod llm-two-worker-1 on node ${NODES[0]} (Failed): container pytorch terminated OOMKilled (exit code 137)`,
      `pod llm-two-worker-0 on node ${NODES[1]} (Running): container pytorch waiting: CrashLoopBackOff, last terminated Error (exit code 1), 2 restarts`,
    ]);
    expect(out.diagnosis).toContain('2 of 3 pods Running');
    expect(writes(w.calls)).toEqual([]);
  });

  it("restarts a stalled PyTorchJob's whole gang: every pod of the job deleted, no other job's; RESTARTING, attempt 2", async () => {
    await pytorchJob(kube, 'llm-stall');
    await pytorchJob(kube, 'llm-neighbour');
    for (const p of [...gang('llm-stall'), ...gang('llm-neighbour')]) await createPod(kube, NS, p);
    const neighbours = await podsOf(kube, NS, { [JOB_LABEL]: 'llm-neighbour' });
    const before = await podsOf(kube, NS, { [JOB_LABEL]: 'llm-stall' });
    // The stacks single out node rank 2: with a master, worker 1.
    const stacks: StackSummary = {
      attempt: 1,
      etags: {},
      text: 'rank 2 waits in all_reduce',
      suspects: [2],
      family: 'distributed_timeout',
      waits: {},
    };
    const w = world({
      runId: 'stall',
      state: 'STALLED',
      job: 'llm-stall',
      policy: RESTARTS,
      rec: { facts: { stacks } },
    });
    const out = await w.run();

    expect(out.diagnosis![0]).toBe(
      `pod llm-stall-worker-1 on node ${NODES[0]} (Running): container pytorch running`,
    );
    expect(out.diagnosis).toContain('3 of 3 pods Running');
    expect(out.decision).toMatchObject({ action: 'restart', mode: 'stall', nextAttempt: 2 });
    expect(out.decision!.reason).toContain(
      'restarted the gang: deleted 3 pods of PyTorchJob llm-stall, which its operator re-creates',
    );
    expect(text(out)).toContain('decision: restart — ');
    expect(text(out)).toContain('restarted the gang');
    expect(w.slack.sent[0]).toMatchObject({
      kind: 'remediation',
      state: 'RESTARTING',
      previousState: 'STALLED',
      attempt: 2,
    });
    expect(writes(w.calls)).toEqual([`deletePods(${NS}, {"${JOB_LABEL}":"llm-stall"})`]);

    // Every pod of the job is being deleted (each waits for its kubelet); the neighbour's are untouched.
    const after = await podsOf(kube, NS, { [JOB_LABEL]: 'llm-stall' });
    expect(after.map((p) => [p.name, p.uid, p.deleting])).toEqual(before.map((p) => [p.name, p.uid, true]));
    expect(await podsOf(kube, NS, { [JOB_LABEL]: 'llm-neighbour' })).toEqual(neighbours);

    const rec = (await w.states.get('stall'))!;
    expect(rec).toMatchObject({ state: 'RESTARTING', attempt: 2, remediation: { restarts: 1 } });
    expect(w.states.flips.at(-1)).toMatchObject({ from: 'STALLED', to: 'RESTARTING', attempt: 2 });
    expect(JSON.parse(rec.remediation!.savedJob!).spec).toEqual(
      (await storedJob(kube, NS, 'PyTorchJob', 'llm-stall')).spec,
    );
    expect(w.archived).toEqual([]); // a stalled run has no _error to archive
    expect(w.ssm).toEqual([]);

    // As kubelets and the operator: the old pods stop, the gang comes back whole, every pod new.
    expect(await pytorchOperatorStep(kube, NS, 'llm-stall')).toEqual([
      ...before.map((p) => `removed ${p.name}`),
      ...before.map((p) => `created ${p.name}`),
    ]);
    const back = await podsOf(kube, NS, { [JOB_LABEL]: 'llm-stall' });
    expect(back.map((p) => [p.name, p.deleting, p.phase])).toEqual(
      before.map((p) => [p.name, false, 'Running']),
    );
    for (const [i, p] of back.entries()) expect(p.uid).not.toBe(before[i]!.uid);
    expect(await podsOf(kube, NS, { [JOB_LABEL]: 'llm-neighbour' })).toEqual(neighbours);
  });

  it("keeps the policy's backoff where the function can wait it out, and says so where it cannot", async () => {
    for (const [job, seconds] of [
      ['llm-short', 60],
      ['llm-long', 900],
    ] as const) {
      await pytorchJob(kube, job);
      for (const p of gang(job)) await createPod(kube, NS, p);
      const policy: RestartPolicy = {
        ...TRANSIENT,
        backoff: { initial_seconds: seconds, factor: 2, max_seconds: seconds },
      };
      const w = world({ runId: job, state: 'STALLED', job, policy });
      const out = await w.run();
      expect(out.decision).toMatchObject({ action: 'restart', delayMs: seconds * 1000 });
      expect(writes(w.calls)).toEqual([`deletePods(${NS}, {"${JOB_LABEL}":"${job}"})`]);
      const rec = (await w.states.get(job))!;
      if (seconds === 60) {
        // Waited out before acting: the new attempt starts after the backoff, as the record says.
        expect(rec.restartIssuedAt).toBe(NOW + 60_000);
        expect(out.decision!.reason).not.toContain('at once');
      } else {
        expect(rec.restartIssuedAt).toBe(NOW);
        expect(out.decision!.reason).toContain(
          'at once: a backoff of 15 min is longer than the function may wait on EKS',
        );
      }
    }
  });

  it("gangRestart 'suspend': suspends the PyTorchJob, waits until the operator has removed its pods, then resumes it", async () => {
    await pytorchJob(kube, 'llm-suspend');
    for (const p of gang('llm-suspend')) await createPod(kube, NS, p);
    const before = await podsOf(kube, NS, { [JOB_LABEL]: 'llm-suspend' });
    const timeline: string[] = [];
    let seen: boolean | undefined;
    // The suspend state logged is the one each step read and acted on (one read: no race with the resume).
    const operator = controller(async () => {
      const did = await pytorchOperatorStep(kube, NS, 'llm-suspend', 2, (suspend) => {
        if (suspend !== seen && suspend !== undefined) timeline.push(`saw suspend: ${suspend}`);
        seen = suspend;
      });
      timeline.push(...did);
    });
    const w = world({
      runId: 'suspend',
      state: 'STALLED',
      job: 'llm-suspend',
      policy: RESTARTS,
      gangRestart: 'suspend',
    });
    const out = await w.run();
    // The operator brings the gang back once it sees the resume.
    for (let i = 0; i < 250 && (await podsOf(kube, NS, { [JOB_LABEL]: 'llm-suspend' })).length < 3; i++)
      await sleep(20);
    await operator.stop();

    expect(out.decision).toMatchObject({ action: 'restart', nextAttempt: 2 });
    expect(out.decision!.reason).toContain(
      'suspended PyTorchJob llm-suspend until its pods were gone, then resumed it',
    );
    expect(writes(w.calls)).toEqual([
      `patchJob(${NS}, PyTorchJob, llm-suspend, {"spec":{"runPolicy":{"suspend":true}}})`,
      `patchJob(${NS}, PyTorchJob, llm-suspend, {"spec":{"runPolicy":{"suspend":false}}})`,
    ]);
    expect(timeline).toEqual([
      'saw suspend: true',
      ...before.map((p) => `suspended: removed ${p.name}`),
      'saw suspend: false',
      ...before.map((p) => `created ${p.name}`),
    ]);
    const job = await storedJob(kube, NS, 'PyTorchJob', 'llm-suspend');
    // A merge patch: the rest of runPolicy is kept.
    expect(job.spec.runPolicy).toEqual({ backoffLimit: 3, cleanPodPolicy: 'None', suspend: false });
    expect((await w.states.get('suspend'))!).toMatchObject({ state: 'RESTARTING', attempt: 2 });
  });

  it("gangRestart 'suspend' whose pods never go: leaves the job suspended and says how to resume it", async () => {
    await pytorchJob(kube, 'llm-stuck');
    for (const p of gang('llm-stuck')) await createPod(kube, NS, p);
    const w = world({
      runId: 'stuck',
      state: 'STALLED',
      job: 'llm-stuck',
      policy: RESTARTS,
      gangRestart: 'suspend',
      sleepMs: 0,
    });
    const out = await w.run();
    expect(out.decision!.action).toBe('alert');
    expect(out.decision!.reason).toMatch(
      /^not restarted: suspended PyTorchJob llm-stuck but its pods were still there within 90 s: it stays suspended; resume it by hand \(kubectl patch pytorchjob llm-stuck -n training/,
    );
    expect((await storedJob(kube, NS, 'PyTorchJob', 'llm-stuck')).spec.runPolicy?.suspend).toBe(true);
    expect((await w.states.get('stuck'))!).toMatchObject({ state: 'STALLED', attempt: 1 });
  });

  it('re-creates a PyTorchJob whose Failed condition is True as <name>-tw2, from the same spec; the original untouched', async () => {
    await pytorchJob(kube, 'llm-failed', {
      labels: { project: 'llama' },
      annotations: { 'example.com/owner': 'ml-team' },
    });
    await jobStatus(kube, NS, 'PyTorchJob', 'llm-failed', {
      conditions: [
        { type: 'Created', status: 'True', reason: 'PyTorchJobCreated' },
        { type: 'Running', status: 'False', reason: 'PyTorchJobRunning' },
        {
          type: 'Failed',
          status: 'True',
          reason: 'PyTorchJobFailed',
          message: 'PyTorchJob llm-failed is failed because 1 Worker replica(s) failed.',
        },
      ],
    });
    const [master, w0, w1] = gang('llm-failed');
    const exited = {
      phase: 'Failed',
      containerStatuses: [
        container({ terminated: { exitCode: 1, reason: 'Error', finishedAt: '2024-05-01T12:55:00Z' } }),
      ],
    };
    for (const p of [master!, w0!]) await createPod(kube, NS, p);
    await createPod(kube, NS, { ...w1!, status: exited });
    logs.set(`${NS}/llm-failed-worker-1/pytorch`, `${healthyLog}\n${NCCL}`);
    const original = await storedJob(kube, NS, 'PyTorchJob', 'llm-failed');
    const pods = await podsOf(kube, NS, { [JOB_LABEL]: 'llm-failed' });

    const w = world({ runId: 'failed', state: 'FAILED', job: 'llm-failed', policy: RESTARTS, error: NCCL });
    const out = await w.run();

    expect(out.errorType).toMatch(/^(nccl_timeout|watchdog_timeout)$/);
    expect(out.decision).toMatchObject({ action: 'restart', mode: 'crash', nextAttempt: 2 });
    expect(out.decision!.reason).toContain(
      'PyTorchJob llm-failed had failed: created PyTorchJob llm-failed-tw2 from its saved spec',
    );
    expect(writes(w.calls)).toEqual([
      expect.stringMatching(/^createJob\(training, PyTorchJob, \{"apiVersion":"kubeflow.org\/v1"/),
    ]);
    const created = await storedJob(kube, NS, 'PyTorchJob', 'llm-failed-tw2');
    expect(created.spec).toEqual(original.spec);
    expect(created.metadata.labels).toEqual(original.metadata.labels);
    expect(created.metadata.annotations).toEqual(original.metadata.annotations);
    expect(created.metadata.uid).not.toBe(original.metadata.uid);
    expect(created.status).toBeUndefined(); // a new job: its operator has not seen it yet
    // The failed job and its pods stay as they were (the function may create jobs, never delete them).
    expect(await storedJob(kube, NS, 'PyTorchJob', 'llm-failed')).toEqual(original);
    expect(await podsOf(kube, NS, { [JOB_LABEL]: 'llm-failed' })).toEqual(pods);
    expect((await w.states.get('failed'))!).toMatchObject({ state: 'RESTARTING', attempt: 2 });
    expect(w.archived).toEqual(['failed/attempts/1/error']);
  });

  it('re-creates a job that is gone (cleaned up after it failed) under its own name, from the spec saved on the run', async () => {
    await pytorchJob(kube, 'llm-gone');
    const saved = await tw.getJob(NS, 'PyTorchJob', 'llm-gone');
    await admin(kube, 'DELETE', `/apis/kubeflow.org/v1/namespaces/${NS}/pytorchjobs/llm-gone`);
    expect(await jobExists(kube, NS, 'PyTorchJob', 'llm-gone')).toBe(false);
    const w = world({
      runId: 'gone',
      state: 'FAILED',
      job: 'llm-gone',
      policy: RESTARTS,
      error: NCCL,
      // An earlier remediation of this run saw the job and kept its manifest.
      rec: {
        remediation: { restarts: 0, bestSteps: {}, history: [], savedJob: JSON.stringify(saved.manifest) },
      },
    });
    const out = await w.run();
    expect(out.diagnosis).toEqual([
      `PyTorchJob llm-gone is gone from namespace ${NS} (deleted, or cleaned up after it ended)`,
      'its spec was saved while it ran: a restart re-creates PyTorchJob llm-gone',
    ]);
    expect(out.decision).toMatchObject({ action: 'restart', nextAttempt: 2 });
    expect(out.decision!.reason).toContain(
      'PyTorchJob llm-gone was gone: created PyTorchJob llm-gone from its saved spec',
    );
    const created = await storedJob(kube, NS, 'PyTorchJob', 'llm-gone');
    expect(created.spec).toEqual(saved.manifest.spec);
    expect(created.metadata.uid).not.toBe(saved.uid);
    expect((await w.states.get('gone'))!).toMatchObject({ state: 'RESTARTING', attempt: 2 });
  });

  it('a job that is gone with no spec saved is not restarted: there is nothing to re-create it from', async () => {
    const w = world({
      runId: 'gone-unsaved',
      state: 'FAILED',
      job: 'llm-never-seen',
      policy: RESTARTS,
      error: NCCL,
    });
    const out = await w.run();
    expect(out.decision!.action).toBe('alert');
    expect(out.decision!.reason).toContain(
      `PyTorchJob llm-never-seen is gone from namespace ${NS} (deleted, or cleaned up after it ended)`,
    );
    expect(writes(w.calls)).toEqual([]);
    expect(await jobExists(kube, NS, 'PyTorchJob', 'llm-never-seen')).toBe(false);
  });

  it('restarts a RayJob that shuts its cluster down: suspended until KubeRay says Suspended, then resumed', async () => {
    const cluster = await rayJob(kube, 'tune-ok', {
      shutdownAfterJobFinishes: true,
      rayClusterSpec: { headGroupSpec: {} },
    });
    for (const p of rayPods(cluster)) await createPod(kube, NS, p);
    const timeline: string[] = [];
    const kuberay = controller(async () => {
      const job = await storedJob(kube, NS, 'RayJob', 'tune-ok');
      const status = job.status?.jobDeploymentStatus;
      if (job.spec.suspend === true && status !== 'Suspended') {
        // KubeRay deletes the RayCluster (its pods) and stops the job, then reports Suspended.
        for (const p of await podsOf(kube, NS, { [RAY_CLUSTER]: cluster })) await removePod(kube, NS, p.name);
        await jobStatus(kube, NS, 'RayJob', 'tune-ok', {
          jobDeploymentStatus: 'Suspended',
          jobStatus: 'STOPPED',
        });
        timeline.push('suspended');
      } else if (job.spec.suspend === false && status === 'Suspended') {
        await jobStatus(kube, NS, 'RayJob', 'tune-ok', {
          jobDeploymentStatus: 'Initializing',
          jobStatus: 'PENDING',
        });
        for (const p of rayPods(cluster)) await createPod(kube, NS, p);
        timeline.push('resumed');
      }
    });
    const w = world({
      runId: 'ray',
      state: 'STALLED',
      kind: 'RayJob',
      job: 'tune-ok',
      pod: `${cluster}-head-0`,
      policy: RESTARTS,
    });
    const out = await w.run();
    for (let i = 0; i < 250 && timeline.length < 2; i++) await sleep(20);
    await kuberay.stop();

    expect(out.diagnosis).toContain('2 of 2 pods Running');
    expect(out.decision).toMatchObject({ action: 'restart', nextAttempt: 2 });
    expect(out.decision!.reason).toContain(
      'suspended RayJob tune-ok until KubeRay reported it Suspended, then resumed it',
    );
    expect(writes(w.calls)).toEqual([
      `patchJob(${NS}, RayJob, tune-ok, {"spec":{"suspend":true}})`,
      `patchJob(${NS}, RayJob, tune-ok, {"spec":{"suspend":false}})`,
    ]);
    expect(timeline).toEqual(['suspended', 'resumed']);
    const job = await storedJob(kube, NS, 'RayJob', 'tune-ok');
    expect(job.spec).toMatchObject({
      suspend: false,
      shutdownAfterJobFinishes: true,
      entrypoint: 'python tune.py',
    });
    expect((await w.states.get('ray'))!).toMatchObject({ state: 'RESTARTING', attempt: 2 });
  });

  it.each([
    [
      'tune-keep',
      { shutdownAfterJobFinishes: false, rayClusterSpec: { headGroupSpec: {} } },
      'RayJob tune-keep has shutdownAfterJobFinishes: false, and KubeRay suspends only RayJobs that shut their cluster down',
    ],
    [
      'tune-shared',
      { shutdownAfterJobFinishes: true, clusterSelector: { [RAY_CLUSTER]: 'shared' } },
      'RayJob tune-shared runs on an existing RayCluster (clusterSelector): KubeRay cannot suspend it',
    ],
  ])(
    'refuses to suspend RayJob %s where KubeRay would reject it, with the reason; its spec unchanged',
    async (name, spec, why) => {
      const cluster = await rayJob(kube, name, spec);
      for (const p of rayPods(cluster)) await createPod(kube, NS, p);
      const before = await storedJob(kube, NS, 'RayJob', name);
      const pods = await podsOf(kube, NS, { [RAY_CLUSTER]: cluster });
      const w = world({
        runId: name,
        state: 'STALLED',
        kind: 'RayJob',
        job: name,
        pod: `${cluster}-head-0`,
        policy: RESTARTS,
      });
      const out = await w.run();
      // Known from the probe: the policy's restart becomes an alert before anything is launched, and nobody
      // is offered a restart that would be refused the same way.
      expect(out.decision).toMatchObject({ action: 'alert', reason: `not restarting: ${why}` });
      expect(text(out)).toContain(`decision: no restart — not restarting: ${why}`);
      expect(w.slack.sent[0]!.offersRestart).toBeUndefined();
      expect(writes(w.calls)).toEqual([]);
      expect(await storedJob(kube, NS, 'RayJob', name)).toEqual(before);
      expect(await podsOf(kube, NS, { [RAY_CLUSTER]: cluster })).toEqual(pods);
      expect((await w.states.get(name))!).toMatchObject({ state: 'STALLED', attempt: 1 });
    },
  );

  it("leaves a job with HyperPod's auto-resume to HyperPod: reports 'HyperPod is retrying: N of 10', restarts nothing", async () => {
    await pytorchJob(kube, 'llm-hyperpod', {
      annotations: {
        'sagemaker.amazonaws.com/enable-job-auto-resume': 'true',
        'sagemaker.amazonaws.com/job-max-retry-count': '10',
      },
    });
    const [master, w0] = gang('llm-hyperpod', 1);
    await createPod(kube, NS, { ...master!, status: RUNNING(1) });
    await createPod(kube, NS, {
      ...w0!,
      status: {
        phase: 'Running',
        containerStatuses: [
          container({ waiting: { reason: 'CrashLoopBackOff' } }, 3, {
            terminated: { exitCode: 1, reason: 'Error' },
          }),
        ],
      },
    });
    const job = await storedJob(kube, NS, 'PyTorchJob', 'llm-hyperpod');
    const pods = await podsOf(kube, NS, { [JOB_LABEL]: 'llm-hyperpod' });
    const w = world({ runId: 'hyperpod', state: 'FAILED', job: 'llm-hyperpod', policy: AGGRESSIVE });
    const out = await w.run();

    const retrying =
      "HyperPod is retrying: 3 of 10 (job auto-resume owns this job's recovery; trainwatch does not restart it)";
    expect(out.diagnosis![0]).toBe(retrying);
    expect(out.decision!.action).toBe('alert');
    expect(out.decision!.reason).toBe(`not restarting: ${retrying}`);
    expect(text(out)).toContain(`diagnosis: ${retrying}`);
    expect(writes(w.calls)).toEqual([]);
    expect(await storedJob(kube, NS, 'PyTorchJob', 'llm-hyperpod')).toEqual(job);
    expect(await podsOf(kube, NS, { [JOB_LABEL]: 'llm-hyperpod' })).toEqual(pods);
    expect((await w.states.get('hyperpod'))!).toMatchObject({ state: 'FAILED', attempt: 1 });
    // Nobody is offered a restart HyperPod's job would refuse.
    expect(w.slack.sent[0]!.offersRestart).toBeUndefined();
  });

  it("never suspends a Kueue-managed PyTorchJob: with gangRestart 'suspend' its pods are deleted instead", async () => {
    await pytorchJob(kube, 'llm-kueue', { labels: { 'kueue.x-k8s.io/queue-name': 'team-a-queue' } });
    for (const p of gang('llm-kueue')) await createPod(kube, NS, p);
    const job = await storedJob(kube, NS, 'PyTorchJob', 'llm-kueue');
    const w = world({
      runId: 'kueue',
      state: 'STALLED',
      job: 'llm-kueue',
      policy: RESTARTS,
      gangRestart: 'suspend',
    });
    const out = await w.run();
    expect(out.decision).toMatchObject({ action: 'restart', nextAttempt: 2 });
    expect(out.decision!.reason).toContain(
      'restarted the gang: deleted 3 pods of PyTorchJob llm-kueue, which its operator re-creates (Kueue admits it through team-a-queue: not suspended)',
    );
    expect(writes(w.calls)).toEqual([`deletePods(${NS}, {"${JOB_LABEL}":"llm-kueue"})`]);
    expect(await storedJob(kube, NS, 'PyTorchJob', 'llm-kueue')).toEqual(job);
    expect((await podsOf(kube, NS, { [JOB_LABEL]: 'llm-kueue' })).every((p) => p.deleting)).toBe(true);
  });

  it('refuses to restart a Kueue-managed RayJob (a suspend would hold it out of its queue)', async () => {
    const cluster = await rayJob(
      kube,
      'tune-kueue',
      { shutdownAfterJobFinishes: true, rayClusterSpec: { headGroupSpec: {} } },
      { labels: { 'kueue.x-k8s.io/queue-name': 'team-a-queue' } },
    );
    for (const p of rayPods(cluster)) await createPod(kube, NS, p);
    const job = await storedJob(kube, NS, 'RayJob', 'tune-kueue');
    const w = world({
      runId: 'ray-kueue',
      state: 'STALLED',
      kind: 'RayJob',
      job: 'tune-kueue',
      pod: `${cluster}-head-0`,
      policy: RESTARTS,
    });
    const out = await w.run();
    expect(out.decision).toMatchObject({
      action: 'alert',
      reason:
        'not restarting: Kueue admits RayJob tune-kueue through team-a-queue: trainwatch never suspends a Kueue-managed job',
    });
    expect(w.slack.sent[0]!.offersRestart).toBeUndefined();
    expect(writes(w.calls)).toEqual([]);
    expect(await storedJob(kube, NS, 'RayJob', 'tune-kueue')).toEqual(job);
  });

  it('a Role without deletecollection on pods: the restart fails naming 403, and nothing changes', async () => {
    await pytorchJob(kube, 'llm-locked', { ns: RESTRICTED });
    for (const p of gang('llm-locked')) await createPod(kube, RESTRICTED, p);
    const job = await storedJob(kube, RESTRICTED, 'PyTorchJob', 'llm-locked');
    const pods = await podsOf(kube, RESTRICTED, { [JOB_LABEL]: 'llm-locked' });
    const w = world({
      runId: 'locked',
      state: 'STALLED',
      job: 'llm-locked',
      ns: RESTRICTED,
      policy: RESTARTS,
    });
    const out = await w.run();

    expect(out.decision!.action).toBe('alert');
    expect(out.decision!.reason).toMatch(
      /^not restarted: could not delete the pods of PyTorchJob llm-locked: Kubernetes DELETE \/api\/v1\/namespaces\/restricted\/pods: 403 Forbidden: pods is forbidden: User "trainwatch-remediation" cannot deletecollection resource "pods" in API group "" in the namespace "restricted"$/,
    );
    expect(text(out)).toContain('403 Forbidden');
    expect(writes(w.calls)).toEqual([`deletePods(${RESTRICTED}, {"${JOB_LABEL}":"llm-locked"})`]);
    expect(await podsOf(kube, RESTRICTED, { [JOB_LABEL]: 'llm-locked' })).toEqual(pods);
    expect(await storedJob(kube, RESTRICTED, 'PyTorchJob', 'llm-locked')).toEqual(job);
    const rec = (await w.states.get('locked'))!;
    expect(rec).toMatchObject({ state: 'STALLED', attempt: 1, remediation: { restarts: 0 } });
    expect(w.states.flips).toEqual([]);
  });

  it('a namespace or cluster the configuration does not list is refused without a single API call', async () => {
    await pytorchJob(kube, 'llm-unlisted', { ns: UNLISTED });
    for (const p of gang('llm-unlisted')) await createPod(kube, UNLISTED, p);
    const pods = await podsOf(kube, UNLISTED, { [JOB_LABEL]: 'llm-unlisted' });
    const w = world({
      runId: 'unlisted',
      state: 'STALLED',
      job: 'llm-unlisted',
      ns: UNLISTED,
      policy: RESTARTS,
    });
    const out = await w.run();
    const why = `namespace ${UNLISTED} of cluster ${CLUSTER} is not one trainwatch may act in`;
    expect(out.decision!.action).toBe('alert');
    expect(out.decision!.reason).toContain(why);
    expect(out.diagnosis).toEqual([why]);
    expect(text(out)).toContain(`note: ${why}`);
    expect(w.clusters).toEqual([]);
    expect(w.calls).toEqual([]);
    expect(w.ssm).toEqual([]);
    expect(await podsOf(kube, UNLISTED, { [JOB_LABEL]: 'llm-unlisted' })).toEqual(pods);
    expect(await jobExists(kube, UNLISTED, 'PyTorchJob', 'llm-unlisted')).toBe(true);

    // A cluster it may not act in: the same, and deps.eks is never asked for it.
    const other = world({
      runId: 'other-cluster',
      state: 'STALLED',
      job: 'llm-unlisted',
      cluster: 'ml-staging',
      policy: RESTARTS,
    });
    const refused = await other.run();
    expect(refused.decision!.reason).toContain('cluster ml-staging is not one trainwatch may act in');
    expect(other.clusters).toEqual([]);
    expect(other.calls).toEqual([]);
  });
});
