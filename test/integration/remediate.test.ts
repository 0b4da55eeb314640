import { randomBytes } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { handleRemediation } from '../../lambdas/handlers/remediate.js';
import { runSweep } from '../../lambdas/handlers/sweep.js';
import type { App } from '../../lambdas/wiring/app.js';
import { remediationDeps } from '../../lambdas/wiring/remediation.js';
import { BEHAVIOURS, type InstanceBehaviour, SimulatedInstance } from '../../local/simulatedInstance.js';
import { metadata, progress, type TestEnvironment, testEnvironment } from '../support/environment.js';

const NCCL = `[rank3]:[E1122 10:42:17.123456 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5621, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600039 milliseconds before timing out.`;
const OOM =
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 5.06 MiB is free.';

// Restart at once (no backoff) so the test needs no minute-long wait; everything else is the transient preset.
const ENV = {
  TRAINWATCH_RESTART_POLICY: JSON.stringify({ extends: 'transient', backoff: { initial_seconds: 0 } }),
  TRAINWATCH_RESTART_COMMANDS: JSON.stringify({
    '*': { command: '/opt/train/resume.sh --config /opt/train/cfg.yaml', process_pattern: 'train.py' },
  }),
  TRAINWATCH_DIAGNOSE_DOCUMENT: 'tw-test-diagnose',
  TRAINWATCH_RESTART_DOCUMENT: 'tw-test-restart',
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const instanceId = () => `i-${randomBytes(9).toString('hex').slice(0, 17)}`;

async function setup(
  behaviour: InstanceBehaviour | null,
  onRestart?: ConstructorParameters<typeof SimulatedInstance>[0]['onRestart'],
) {
  const t = await testEnvironment(ENV);
  const id = instanceId();
  const app = t.app();
  let instance: SimulatedInstance | undefined;
  if (behaviour) {
    instance = new SimulatedInstance({
      endpoint: t.env.AWS_ENDPOINT_URL!,
      instanceId: id,
      behaviour,
      onRestart,
      pollMs: 50,
    });
    await instance.start();
  }
  cleanups.push(async () => {
    await instance?.stop();
    await t.close();
  });
  return { t, app, id, instance, deps: remediationDeps(app, { pollMs: 50 }) };
}

async function fail(
  t: TestEnvironment,
  app: App,
  runId: string,
  id: string,
  error: string,
  extra: Record<string, unknown> = {},
) {
  await t.put(
    runId,
    'metadata',
    metadata(runId, { instance_id: id, job_name: 'llama', checkpoint_dir: '/checkpoints/run', ...extra }),
  );
  await t.put(runId, 'progress', progress(200));
  await t.put(runId, 'log', `step 200 loss 1.44\n${error}\n`);
  await t.put(runId, 'error', error);
  await runSweep(app, Date.now());
  const events = await t.events();
  const transition = events.find((e) => e.detail.runId === runId && e.detail.state === 'FAILED');
  expect(transition, 'the sweep put the FAILED transition on the bus').toBeDefined();
  return transition!;
}

describe('remediation against the emulator', () => {
  it('restarts a restartable failure on the instance and the run returns to RUNNING as attempt 2', async () => {
    let ctx: Awaited<ReturnType<typeof setup>> | undefined;
    const restarts: { runId: string; attempt: number; command: string }[] = [];
    ctx = await setup(BEHAVIOURS.nccl!, async (r) => {
      restarts.push(r);
      // The new attempt writes fresh heartbeats a little later (S3 LastModified has second precision).
      setTimeout(() => {
        void ctx!.t.put(r.runId, 'metadata', metadata(r.runId, { instance_id: ctx!.id, attempt: r.attempt }));
        void ctx!.t.put(r.runId, 'progress', progress(150));
      }, 1100);
    });
    const { t, app, deps, id } = ctx;
    const event = await fail(t, app, 'nccl-run', id, NCCL);

    const { outcomes } = await handleRemediation(deps, event, Date.now);
    expect(outcomes[0]).toMatchObject({
      errorType: 'watchdog_timeout',
      decision: { action: 'restart', nextAttempt: 2 },
    });
    expect(restarts).toEqual([
      expect.objectContaining({
        runId: 'nccl-run',
        attempt: 2,
        command: '/opt/train/resume.sh --config /opt/train/cfg.yaml',
      }),
    ]);

    const rec = await app.states.get('nccl-run');
    expect(rec).toMatchObject({
      state: 'RESTARTING',
      attempt: 2,
      remediation: { restarts: 1, bestSteps: { '1': 200 } },
    });
    const keys = (
      await app.clients.s3.send(
        new ListObjectsV2Command({ Bucket: t.env.TRAINWATCH_BUCKET, Prefix: 'training-runs/nccl-run/' }),
      )
    ).Contents?.map((o) => o.Key);
    expect(keys).toContain('training-runs/nccl-run/attempts/1/_error');
    expect(keys).not.toContain('training-runs/nccl-run/_error');

    const alert = (await t.events()).find((e) => e.detail.kind === 'remediation')!.detail;
    expect(alert).toMatchObject({
      runId: 'nccl-run',
      state: 'RESTARTING',
      attempt: 2,
      errorType: 'watchdog_timeout',
    });
    const details = (alert.details as string[]).join('\n');
    expect(details).toMatch(
      /^error type: watchdog_timeout \(signal nccl_watchdog_timeout; seq=5621, op_type=ALLREDUCE/m,
    );
    expect(details).toMatch(/^diagnosis: process not running$/m);
    expect(details).toMatch(
      /^decision: restart — restarting as attempt 2 in 0s: .*; resumed from \/checkpoints\/run\/step_latest$/m,
    );

    await new Promise((r) => setTimeout(r, 2500));
    await runSweep(app, Date.now());
    expect(await app.states.get('nccl-run')).toMatchObject({ state: 'RUNNING', attempt: 2 });
  });

  it('does not restart an OOM, says why, and keeps the diagnosis on the run', async () => {
    const { t, app, deps, id, instance } = await setup(BEHAVIOURS.oom!);
    const event = await fail(t, app, 'oom-run', id, OOM);
    const { outcomes } = await handleRemediation(deps, event, Date.now);
    expect(outcomes[0]!.decision).toMatchObject({
      action: 'alert',
      reason: expect.stringMatching(/not restarting: policy transient-custom \(crash\): oom is excluded/),
    });
    expect(instance!.handled).toHaveLength(1); // the diagnosis only
    const rec = await app.states.get('oom-run');
    expect(rec).toMatchObject({
      state: 'FAILED',
      errorType: 'oom',
      remediation: { restarts: 0, history: [expect.objectContaining({ action: 'alert' })] },
    });
    expect(rec!.remediation!.diagnosis!.lines).toContain('process not running');
    const alert = (await t.events()).find((e) => e.detail.kind === 'remediation')!.detail;
    expect((alert.details as string[]).join('\n')).toMatch(
      /error type: oom \(signal cuda_oom; alloc_size=20.00 MiB, gpu=0, gpu_total=79.15 GiB\)/,
    );
  });

  it('turns an offline SSM agent into a finding and does not restart blind', async () => {
    const { t, app, deps, id } = await setup(BEHAVIOURS.gone!);
    const event = await fail(t, app, 'offline-run', id, NCCL);
    const { outcomes } = await handleRemediation(deps, event, Date.now);
    expect(outcomes[0]!.decision!.action).toBe('alert');
    expect(outcomes[0]!.decision!.reason).toMatch(
      new RegExp(`could not check the instance: the SSM agent on ${id} is offline \\(DeliveryTimedOut\\)`),
    );
    expect((await app.states.get('offline-run'))!.state).toBe('FAILED');
  });

  it('says so when the run names no instance, without sending any command', async () => {
    const { t, app, deps } = await setup(null);
    const event = await fail(t, app, 'no-instance', 'not-an-instance', NCCL);
    const { outcomes } = await handleRemediation(deps, event, Date.now);
    expect(outcomes[0]!.diagnosis).toEqual([
      'metadata.json names no valid instance_id, so the instance cannot be examined',
    ]);
    const alert = (await t.events()).find((e) => e.detail.kind === 'remediation')!.detail;
    expect(alert.details).toContain('note: instance_id "not-an-instance" is not a safe instanceId: ignored');
  });

  it('handles a transition once even when the event is delivered twice, also through SQS', async () => {
    const { t, app, deps, id, instance } = await setup(BEHAVIOURS.oom!);
    const event = await fail(t, app, 'twice', id, OOM);
    const sqs = { Records: [{ messageId: 'm1', body: JSON.stringify(event) }] };
    const first = await handleRemediation(deps, sqs, Date.now);
    const second = await handleRemediation(deps, event, Date.now);
    expect(first.outcomes[0]!.decision).toBeDefined();
    expect(second.outcomes[0]!.skipped).toBe('this transition was already handled');
    expect(instance!.handled).toHaveLength(1);
  });
});
