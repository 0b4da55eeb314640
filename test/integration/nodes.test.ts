import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { handleRemediation } from '../../lambdas/handlers/remediate.js';
import { runSweep } from '../../lambdas/handlers/sweep.js';
import { remediationDeps } from '../../lambdas/wiring/remediation.js';
import { BEHAVIOURS, type RestartRequest, SimulatedInstance } from '../../local/simulatedInstance.js';
import { metadata, progress, testEnvironment } from '../support/environment.js';

const ENV = {
  // gpu_xid is restarted only by a policy that names it (its restart moves the job off the broken node):
  // whether that can happen is then the restart target's call (all refuses, head excludes the host).
  TRAINWATCH_RESTART_POLICY: JSON.stringify({
    extends: 'aggressive',
    backoff: { initial_seconds: 0 },
    modes: { crash: { restart_on: ['*', 'gpu_xid', 'unknown'], default_action: 'restart' } },
  }),
  TRAINWATCH_DIAGNOSE_DOCUMENT: 'tw-test-diagnose',
  TRAINWATCH_RESTART_DOCUMENT: 'tw-test-restart',
};
const NCCL = `[rank5]:[E1122 10:42:17.123456 ProcessGroupNCCL.cpp:616] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5621, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600039 milliseconds before timing out.`;

// Unique per test run: the diagnosis really runs pgrep on this machine, where other tests run train.py.
const PATTERN = `train.py --tw-test ${randomBytes(4).toString('hex')}`;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A 4-node run on simulated instances; `broken` answers the diagnosis with an Xid 79 GPU. */
async function fourNodes(job: Record<string, unknown>, broken?: number) {
  const t = await testEnvironment({ ...ENV, TRAINWATCH_RESTART_COMMANDS: JSON.stringify({ '*': job }) });
  const ids = [0, 1, 2, 3].map(() => `i-${randomBytes(9).toString('hex').slice(0, 17)}`);
  const restarts: RestartRequest[] = [];
  const instances = ids.map(
    (instanceId, rank) =>
      new SimulatedInstance({
        endpoint: t.env.AWS_ENDPOINT_URL!,
        instanceId,
        behaviour: rank === broken ? BEHAVIOURS.xid79! : BEHAVIOURS.nccl!,
        onRestart: (r) => {
          restarts.push(r);
        },
        pollMs: 50,
      }),
  );
  for (const i of instances) await i.start();
  cleanups.push(async () => {
    for (const i of instances) await i.stop();
    await t.close();
  });
  const app = t.app();
  const runId = `multi-${randomBytes(3).toString('hex')}`;
  await t.put(
    runId,
    'metadata',
    metadata(runId, { instance_id: ids[0], nodes: 4, checkpoint_dir: '/checkpoints/multi' }),
  );
  await t.put(runId, 'progress', progress(500));
  for (const [rank, instanceId] of ids.entries())
    await t.putNode(
      runId,
      rank,
      JSON.stringify({
        node_rank: rank,
        nodes: 4,
        instance_id: instanceId,
        hostname: `ip-10-0-1-${20 + rank}`,
      }),
    );
  await runSweep(app, Date.now());
  expect((await app.states.get(runId))!.facts.nodes).toBeDefined();
  await t.put(runId, 'error', NCCL);
  await runSweep(app, Date.now());
  const event = (await t.events()).find((e) => e.detail.runId === runId && e.detail.state === 'FAILED')!;
  expect(event).toBeDefined();
  const deps = remediationDeps(app, { pollMs: 50 });
  return { t, app, runId, ids, restarts, instances, deps, event };
}

describe('multi-node remediation against the emulator (fan-out through SSM)', () => {
  it('diagnoses all four instances, names node 2 (Xid 79) and refuses an all-nodes restart', async () => {
    const { deps, event, instances, restarts, ids, t, runId, app } = await fourNodes(
      { command: '/opt/train/resume.sh', process_pattern: PATTERN },
      2,
    );
    const { outcomes } = await handleRemediation(deps, event, Date.now);
    expect(instances.map((i) => i.handled.length)).toEqual([1, 1, 1, 1]);
    expect(restarts).toEqual([]);
    expect(outcomes[0]!.decision).toMatchObject({ action: 'alert' });
    expect(outcomes[0]!.decision!.reason).toContain(
      `the restart would land on the same broken GPU: replace node 2 (${ids[2]}, ip-10-0-1-22) first`,
    );
    const alert = (await t.events()).find(
      (e) => e.detail.runId === runId && e.detail.kind === 'remediation',
    )!;
    expect((alert.detail.details as string[]).join('\n')).toMatch(
      new RegExp(
        `^culprit: node 2 \\(${ids[2]}, ip-10-0-1-22\\): GPU \\d: Xid 79, fallen off the bus — replace the node; 3 nodes healthy$`,
        'm',
      ),
    );
    expect((await app.states.get(runId))!.state).toBe('FAILED');
  });

  it('restarts every node with its rank and node 0 as master when no hardware broke', async () => {
    const { deps, event, restarts, app, runId } = await fourNodes({
      command: '/opt/train/resume.sh',
      process_pattern: PATTERN,
    });
    const { outcomes } = await handleRemediation(deps, event, Date.now);
    expect(outcomes[0]!.decision).toMatchObject({ action: 'restart', nextAttempt: 2 });
    expect(outcomes[0]!.decision!.reason).toMatch(
      /resumed from \/checkpoints\/multi\/step_latest on all 4 nodes/,
    );
    expect(restarts.map((r) => [r.nodeRank, r.nnodes, r.masterAddr]).sort()).toEqual([
      [0, 4, 'ip-10-0-1-20'],
      [1, 4, 'ip-10-0-1-20'],
      [2, 4, 'ip-10-0-1-20'],
      [3, 4, 'ip-10-0-1-20'],
    ]);
    expect((await app.states.get(runId))!.state).toBe('RESTARTING');
  });

  it('restarts a scheduler job on the head only, excluding the broken node', async () => {
    const { deps, event, restarts } = await fourNodes(
      { command: '/opt/slurm/requeue.sh', process_pattern: PATTERN, target: 'head' },
      3,
    );
    const { outcomes } = await handleRemediation(deps, event, Date.now);
    expect(outcomes[0]!.decision, outcomes[0]!.decision!.reason).toMatchObject({ action: 'restart' });
    expect(restarts.map((r) => [r.nodeRank, r.excludeHosts])).toEqual([[0, 'ip-10-0-1-23']]);
  });
});
