// The local mode's run on EKS (docs/LOCAL.md "A run on EKS"): a real kube-apiserver (local/kubeServer.ts) holds
// two PyTorchJobs, and two runs in the emulator name them in metadata.json (`platform`, protocol v1.4). The runs
// go through trainwatch's real path: S3 → EventBridge → the sentinel, the sweep, the transition's event →
// remediation, whose EKS platform reaches the API server through the real adapter with trainwatch's own token
// (docs/eks-rbac.yaml and nothing more). This section plays the pods' kubelets and the training operator.
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { eksApi } from '../lambdas/adapters/platforms/eks/eksApi.js';
import { kubeApi } from '../lambdas/adapters/platforms/eks/kubeApi.js';
import type { Alert } from '../lambdas/core/model/alert.js';
import type { Notifier } from '../lambdas/core/model/ports.js';
import type { RemediationDeps } from '../lambdas/core/remediation/index.js';
import { slackMessage } from '../lambdas/core/render/slack.js';
import { handleRemediation } from '../lambdas/handlers/remediate.js';
import { evaluateSentinels } from '../lambdas/handlers/sentinel.js';
import { runSweep } from '../lambdas/handlers/sweep.js';
import { type App, createApp } from '../lambdas/wiring/app.js';
import { remediationDeps } from '../lambdas/wiring/remediation.js';
import { kubeBuilt } from '../scripts/ensure-kube.mjs';
import { type AwsClients, awsClients } from './awsClients.js';
import { NAMESPACE, prepareCluster, rbacInEffect, recreateGang, seedJobs } from './eksCluster.js';
import { HeartbeatWriter } from './heartbeatWriter.js';
import { applyCrds, type Kube, startKube } from './kubeServer.js';
import { setupLocal, setupLocalQueues } from './setup.js';
import { renderSlack } from './slackReceiver.js';
import { statusTable } from './statusTable.js';

/** What the local mode prints instead, where the API server is not built. */
export const EKS_SKIPPED =
  'EKS: skipped — build the Kubernetes API server once with `node scripts/ensure-kube.mjs` (~15 min), then `npm start` shows a run on EKS';

const CLUSTER = 'trainwatch-local';
const OOM = 'llama-sft';
const HANG = 'gemma-pt';
const STALL_MS = 4_000;
const TOTAL = 2000;
/** Rank 0's `_error` when a peer's container is killed: by itself it reads as a network fault. */
const PEER_GONE = `Traceback (most recent call last):
  File "/workspace/train.py", line 88, in <module>
    loss.backward()
torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.21.5
ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.`;

/** The section's own stack on the emulator: its own bucket, table and bus, a short stall, stalls restarted. */
function eksEnv(endpoint: string): Record<string, string> {
  const name = 'trainwatch-local-eks';
  return {
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    TRAINWATCH_BUCKET: name,
    TRAINWATCH_PREFIX: 'training-runs',
    TRAINWATCH_TABLE: name,
    TRAINWATCH_TOPIC_ARN: `arn:aws:sns:us-east-1:123456789012:${name}`,
    TRAINWATCH_EVENT_BUS: name,
    TRAINWATCH_STALE_AFTER: '60s',
    TRAINWATCH_STALL_AFTER: `${STALL_MS / 1000}s`,
    TRAINWATCH_STARTUP_GRACE: '60s',
    TRAINWATCH_RESTART_POLICY: JSON.stringify({ extends: 'transient', backoff: { initial_seconds: 1 } }),
  };
}

const since = (t0: number) => () => `[+${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s]`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The next batch on a queue, as the Lambda trigger would hand it over (what came within `ms`). */
async function nextBatch(app: App<AwsClients>, url: string, want: number, ms = 10_000) {
  const Records: { messageId: string; body: string }[] = [];
  for (const end = Date.now() + ms; Records.length < want && Date.now() < end; ) {
    const { Messages = [] } = await app.clients.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    Records.push(...Messages.map((m) => ({ messageId: m.MessageId!, body: m.Body ?? '' })));
  }
  return { Records };
}

/** The section's app on the emulator, its alerts printed (a remediation alert whole, others in one line). */
async function eksStack(endpoint: string, out: (line: string) => void, at: () => string) {
  const env = eksEnv(endpoint);
  // The SDK's default chain reads these (the local mode has set them already): never a real key, nor IMDS.
  process.env.AWS_ACCESS_KEY_ID ??= env.AWS_ACCESS_KEY_ID;
  process.env.AWS_SECRET_ACCESS_KEY ??= env.AWS_SECRET_ACCESS_KEY;
  const base = createApp(env, awsClients({ region: env.AWS_REGION!, endpoint }));
  const printer: Notifier = {
    channel: 'slack',
    notify: async (a: Alert) => {
      const shown = renderSlack(slackMessage(a));
      out(
        a.kind === 'remediation'
          ? `${at()} remediation alert\n${shown}`
          : `${at()} alert: ${shown.split('\n')[0]!.slice(2)} — ${a.reason}`,
      );
    },
  };
  const app: App<AwsClients> = {
    ...base,
    deps: { ...base.deps, notifiers: [...base.deps.notifiers, printer] },
  };
  await setupLocal(app.config, app.clients);
  const queues = await setupLocalQueues(app.config, app.clients, app.config.table);
  return { app, queues };
}

/** What a PyTorchJob's rank 0 writes in its pod (metadata.json's `platform`: protocol v1.4). */
function trainingRun(app: App, job: string): HeartbeatWriter {
  return new HeartbeatWriter(app.clients.s3, app.config.bucket, app.config.prefix, job, {
    job_name: job,
    started_at: new Date().toISOString(),
    attempt: 1,
    platform: {
      kind: 'eks',
      cluster: CLUSTER,
      namespace: NAMESPACE,
      pod: `${job}-master-0`,
      node: 'ip-10-0-1-17.ec2.internal',
      job: { kind: 'PyTorchJob', name: job },
    },
  });
}

/** The app's remediation wiring, given the cluster (the stack's settings have no EKS cluster yet) and its API. */
function eksRemediation(app: App, kube: Kube): RemediationDeps {
  const token = kube.trainwatchToken;
  const ca = Buffer.from(kube.ca).toString('base64'); // as EKS gives certificateAuthority.data
  const api = eksApi(kubeApi({ endpoint: kube.url, certificateAuthority: ca, token: async () => token }));
  const wired = remediationDeps(app);
  return {
    ...wired,
    settings: { ...wired.settings, eks: { clusters: [{ name: CLUSTER, namespaces: [NAMESPACE] }] } },
    eks: async () => api,
  };
}

/**
 * Shows a run on EKS, printing as it goes (`at` stamps each line); where kube-apiserver and etcd are not built,
 * says how to build them. `endpoint` is the local mode's moto server.
 */
export async function eksSection(
  endpoint: string,
  out: (line: string) => void,
  at: () => string = since(Date.now()),
): Promise<void> {
  if (!kubeBuilt()) return out(EKS_SKIPPED);
  out(`${at()} A run on EKS: two PyTorchJobs on a real Kubernetes API server, and the runs they write`);
  const starting = startKube();
  starting.catch(() => undefined); // awaited below; a failure before then is not unhandled
  let kube: Kube | undefined;
  try {
    // While the API server starts (~6 s): both runs train, and the sweep sees them RUNNING.
    const { app, queues } = await eksStack(endpoint, out, at);
    const oom = trainingRun(app, OOM);
    const hang = trainingRun(app, HANG);
    for (const [w, step] of [
      [oom, 412],
      [hang, 730],
    ] as const) {
      await w.metadata({ status: 'running', phase: 'training' });
      await w.progress(step, TOTAL, 1.7);
    }
    const stillSince = Date.now();
    await runSweep(app, Date.now());

    kube = await starting;
    await applyCrds(kube);
    await prepareCluster(kube);
    const deps = eksRemediation(app, kube);
    await rbacInEffect(() => deps.eks!(CLUSTER).then((api) => api.listPods(NAMESPACE, { app: 'none' })));
    out(
      `${at()} kube-apiserver ${kube.url}: namespace ${NAMESPACE} with docs/eks-rbac.yaml; trainwatch may act in ${CLUSTER}/${NAMESPACE}, with a token of the group trainwatch:remediation`,
    );
    // The jobs' first create waits out the 2 s a new CRD is held back for; the runs go on meanwhile.
    const seeding = seedJobs(kube, OOM, HANG);
    seeding.catch(() => undefined); // awaited below

    // Rank 0 of llama-sft sees its peer vanish and writes _error; gemma-pt beats on without a step.
    await oom.log(`step 412/${TOTAL} loss=1.7012\n${PEER_GONE}\n`);
    await oom.error(PEER_GONE);
    await evaluateSentinels(app, await nextBatch(app, queues.sentinel, 1), Date.now());
    await sleep(Math.max(0, stillSince + STALL_MS + 300 - Date.now()));
    await hang.metadata({ status: 'running' });
    await runSweep(app, Date.now());
    await seeding;
    out(
      `${at()} on the cluster: PyTorchJob ${OOM} Failed, ${OOM}-worker-0's container OOMKilled (exit code 137); PyTorchJob ${HANG} with both pods Running`,
    );
    // Both transitions' events, through EventBridge to remediation, which looks at the cluster and acts.
    await handleRemediation(deps, await nextBatch(app, queues.remediation, 2), Date.now);

    const gang = await recreateGang(kube, HANG);
    const restarted = await app.states.get(HANG);
    // The new attempt's heartbeats count from the restart on; S3's LastModified has whole seconds.
    const from = Math.ceil((restarted?.restartIssuedAt ?? 0) / 1000) * 1000 + 50;
    await sleep(Math.max(0, from - Date.now()));
    await hang.metadata({ status: 'running', attempt: restarted?.attempt ?? 2 });
    await hang.progress(700, TOTAL, 1.68);
    out(
      `${at()} the kubelets stopped the deleted pods; the training operator created ${gang.join(' and ')} again, and attempt 2 resumes from its checkpoint`,
    );
    const resumed = await runSweep(app, Date.now());
    for (const t of resumed.transitions) out(`${at()} sweep: ${t.runId} ${t.from}→${t.to}`);
    out(`${at()} trainwatch status:\n${statusTable([...(await app.states.loadLive()).values()])}`);
  } finally {
    await (kube ?? (await starting.catch(() => undefined)))?.stop();
  }
}
