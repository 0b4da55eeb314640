import { describe, expect, it } from 'vitest';
import { classifyDetailed } from '../../../lambdas/core/classify/index.js';
import type { CommandResult, CommandRunner } from '../../../lambdas/core/model/ports.js';
import type { AttemptFacts } from '../../../lambdas/core/model/slices/attempt.js';
import type { NodeSummaries } from '../../../lambdas/core/model/slices/nodes.js';
import type { StackSummary } from '../../../lambdas/core/model/slices/stacks.js';
import { type RemediationDeps, remediate } from '../../../lambdas/core/remediation/index.js';
import { loadPolicy } from '../../../lambdas/core/remediation/policy/index.js';
import { FakeRunStore, FakeStateStore, NO_WAIT, RecordingNotifier, record } from '../../support/fakes.js';

const NOW = 1_800_000_000_000;
const M = 60_000;
const id = (rank: number) => `i-00000000000000${String(rank).padStart(3, '0')}`;
const host = (rank: number) => `ip-10-0-1-${20 + rank}`;
const GONE = 'process.alive=false\nend=ok\n';
const XID79 = [
  'process.alive=false',
  'gpu=3, NVIDIA H100 80GB HBM3, 0, 0, 81559, 40, 0, 0, 00000000:86:00.0',
  "xid=[86412.118305] NVRM: Xid (PCI:0000:86:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
  'end=ok',
].join('\n');

/** Answers the diagnosis per instance and records every call; restarts answer `restartOutput`. */
class Nodes implements CommandRunner {
  readonly diagnosed: string[][] = [];
  readonly restarts: { instanceId: string; parameters: Readonly<Record<string, string>> }[] = [];
  constructor(
    private readonly diagnosis: (instanceId: string) => CommandResult,
    private readonly restartOutput = 'restart.resume_from=/ckpt/r1/step_5200\nrestart.resume_step=5200\nrestart.launched_pid=9\nend=ok\n',
  ) {}
  async run(req: Parameters<CommandRunner['run']>[0]): Promise<CommandResult> {
    this.restarts.push({ instanceId: req.instanceId, parameters: req.parameters });
    const refused = this.restartOutput.includes('restart.refused');
    return { status: refused ? 'Failed' : 'Success', ok: !refused, output: this.restartOutput };
  }
  async runOnEach(req: Parameters<CommandRunner['runOnEach']>[0]): Promise<Map<string, CommandResult>> {
    this.diagnosed.push([...req.instanceIds]);
    return new Map(req.instanceIds.map((i) => [i, this.diagnosis(i)]));
  }
}

function world(
  runner: CommandRunner,
  job: Record<string, unknown> = {},
  n = 4,
  missingInstance?: number,
  state: 'TIMED_OUT' | 'WARNING' | 'STALLED' = 'TIMED_OUT',
  extra: Partial<AttemptFacts> = {},
) {
  const runs = new FakeRunStore();
  runs.put(
    'r1',
    'metadata',
    { run_id: 'r1', instance_id: id(0), job_name: 'llama', checkpoint_dir: '/ckpt/r1', nodes: n },
    NOW - 60 * M,
  );
  for (let r = 0; r < n; r++)
    runs.put('r1', `nodes/${r}.json`, { node_rank: r }, NOW - (r === 2 ? 20 * M : M));
  const nodes: NodeSummaries = Object.fromEntries(
    Array.from({ length: n }, (_, r) => [
      String(r),
      { lastSeen: NOW - M, ...(r === missingInstance ? {} : { instanceId: id(r) }), hostname: host(r) },
    ]),
  );
  const states = new FakeStateStore();
  states.seed(
    record({
      state,
      facts: { step: 5200, stepAdvancedAt: NOW - 30 * M, nodes, ...extra },
      meta: { nodes: n, startedAt: NOW - 3 * 24 * 60 * M },
    }),
  );
  const slack = new RecordingNotifier('slack');
  const deps: RemediationDeps = {
    runs,
    states,
    commands: runner,
    archive: { archive: async () => [] },
    notifiers: [slack],
    links: { bucket: 'b', prefix: 'training-runs', region: 'us-east-1' },
    settings: {
      diagnoseDocument: 'diag',
      restartDocument: 'restart',
      // Names gpu_xid: whether the job can be moved off the broken node is then the restart target's call.
      policy: loadPolicy(
        JSON.stringify({
          extends: 'aggressive',
          modes: { timeout: { restart_on: ['*', 'gpu_xid', 'unknown'], default_action: 'restart' } },
        }),
      ),
      profile: 'production',
      commands: { '*': { command: '/opt/train/resume.sh', ...job } },
    },
    owner: 'test',
    classify: classifyDetailed,
    deliverOptions: NO_WAIT,
  };
  return { deps, states, slack };
}
const ok = (output: string): CommandResult => ({ status: 'Success', ok: true, output });
const details = (slack: RecordingNotifier) => slack.sent.at(-1)!.details!.join('\n');

/** What diagnose.sh prints of py-spy's dump of a process whose main thread is in `frames` (innermost first). */
const pySpy = (frames: string[]) =>
  [
    'process.alive=true',
    'process.pid=4242',
    'stack.process=4242',
    'stack=Process 4242: /opt/conda/bin/python3.11 train.py',
    'stack=Thread 4242 (idle): "MainThread"',
    ...frames.map((f) => `stack=    ${f}`),
    'stack=Thread 4300 (idle): "trainwatch-writer"',
    'stack=    Condition.wait (/opt/conda/lib/python3.11/threading.py:331)',
    'end=ok',
  ].join('\n');
const SITE = '/opt/conda/lib/python3.11/site-packages';
const IN_ALL_REDUCE = pySpy([
  `all_reduce (${SITE}/torch/distributed/distributed_c10d.py:2806)`,
  `wrapper (${SITE}/torch/distributed/c10d_logger.py:81)`,
  'train_step (/opt/train/train.py:88)',
  'main (/opt/train/train.py:97)',
]);
const IN_DATA_LOADER = pySpy([
  'Condition.wait (/opt/conda/lib/python3.11/threading.py:327)',
  'Queue.get (/opt/conda/lib/python3.11/queue.py:171)',
  'Dataset.__getitem__ (/opt/train/dataset.py:41)',
  `_MapDatasetFetcher.fetch (${SITE}/torch/utils/data/_utils/fetch.py:52)`,
  `_SingleProcessDataLoaderIter._next_data (${SITE}/torch/utils/data/dataloader.py:757)`,
  `_BaseDataLoaderIter.__next__ (${SITE}/torch/utils/data/dataloader.py:701)`,
  'main (/opt/train/train.py:95)',
]);

describe('remediation of a multi-node run', () => {
  it('a stalled run: names the node whose py-spy stack stands apart (data loader among all_reduce), typed hang by its stack', async () => {
    const runner = new Nodes((i) => ok(i === id(2) ? IN_DATA_LOADER : IN_ALL_REDUCE));
    const { deps, slack, states } = world(runner, {}, 4, undefined, 'STALLED');
    // The log's last words would say the NCCL watchdog: the blocking call decides, not the last line.
    (deps.runs as FakeRunStore).put(
      'r1',
      'log',
      'step 5200 loss 1.1\n[Rank 0] Watchdog caught collective operation timeout',
      NOW - M,
    );
    await remediate(deps, { runId: 'r1', state: 'STALLED' }, NOW);
    expect(details(slack)).toMatch(
      /^culprit: node 2 \(i-00000000000000002, ip-10-0-1-22\): training thread in `DataLoader.__next__` \(queue.get, dataset.py:41\) while the others are not \(py-spy\); 3 nodes healthy$/m,
    );
    expect(details(slack)).toMatch(
      /^error type: hang \(from the stacks: the call the training thread blocks in; the log read \w+\)$/m,
    );
    expect((await states.get('r1'))!.errorType).toBe('hang');
  });

  it('a stalled run whose client wrote stacks: the sweep’s verdict names the culprit and its family (a lock: deadlock)', async () => {
    const runner = new Nodes(() => ok(GONE.replace('false', 'true')));
    const stacks: StackSummary = {
      attempt: 1,
      etags: {},
      waits: {
        '0': { kind: 'collective', call: 'all_reduce', at: 'train.py:88' },
        '1': { kind: 'lock', call: 'lock.acquire', at: 'metrics.py:30' },
      },
      text: "node 0 wait in `all_reduce` (train.py:88); node 1 is in `lock.acquire` (metrics.py:30): node 1's lock is the likely cause",
      suspects: [1],
      family: 'deadlock',
    };
    const { deps, slack, states } = world(runner, {}, 2, undefined, 'STALLED', { stacks });
    await remediate(deps, { runId: 'r1', state: 'STALLED' }, NOW);
    expect(details(slack)).toMatch(
      /^culprit: node 1 \(i-00000000000000001, ip-10-0-1-21\): training thread in `lock.acquire` \(metrics.py:30\) while the others are not \(its stack file\)/m,
    );
    expect((await states.get('r1'))!.errorType).toBe('deadlock');
  });

  it('a run TIMED_OUT after the job’s watchdog killed every process: the stacks written before name the culprit (issue 30)', async () => {
    const runner = new Nodes(() => ok(GONE));
    const stacks: StackSummary = {
      attempt: 1,
      etags: {},
      waits: {
        '0': { kind: 'collective', call: 'all_reduce', at: 'train.py:88', moving: false },
        '1': {
          kind: 'data_loader',
          call: 'DataLoader.__next__',
          blocks: 'queue.get',
          at: 'dataset.py:41',
          moving: false,
        },
      },
      text: "node 0 waits in `all_reduce` (train.py:88); node 1 is in `DataLoader.__next__` (queue.get, dataset.py:41): node 1's data loader is the likely cause",
      suspects: [1],
      family: 'hang',
    };
    const { deps, slack } = world(runner, {}, 2, undefined, 'TIMED_OUT', { stacks });
    await remediate(deps, { runId: 'r1', state: 'TIMED_OUT' }, NOW);
    expect(details(slack)).toMatch(
      /^culprit: node 1 \(i-00000000000000001, ip-10-0-1-21\): training thread in `DataLoader.__next__` \(queue.get, dataset.py:41\) while the others are not \(its stack file\)/m,
    );
  });

  it('diagnoses every node in one fan-out and names the Xid node as culprit; an all-nodes restart is refused', async () => {
    const runner = new Nodes((i) => ok(i === id(2) ? XID79 : GONE));
    const { deps, slack, states } = world(runner);
    const out = await remediate(deps, { runId: 'r1', state: 'TIMED_OUT' }, NOW);
    expect(runner.diagnosed).toEqual([[id(0), id(1), id(2), id(3)]]);
    expect(runner.restarts).toEqual([]);
    expect(out.decision).toMatchObject({ action: 'alert' });
    expect(out.decision!.reason).toMatch(
      /the restart would land on the same broken GPU: replace node 2 \(i-00000000000000002, ip-10-0-1-22\) first/,
    );
    expect(details(slack)).toMatch(
      /^culprit: node 2 \(i-00000000000000002, ip-10-0-1-22\): GPU 3: Xid 79, fallen off the bus — replace the node; 3 nodes healthy$/m,
    );
    expect((await states.get('r1'))!.state).toBe('TIMED_OUT');
  });

  it('restarts a head-target job once on node 0, asking the scheduler to avoid the broken host', async () => {
    const runner = new Nodes((i) => ok(i === id(2) ? XID79 : GONE));
    const { deps, states } = world(runner, { target: 'head' });
    const out = await remediate(deps, { runId: 'r1', state: 'TIMED_OUT' }, NOW);
    expect(
      runner.restarts.map((r) => [r.instanceId, r.parameters.NodeRank, r.parameters.ExcludeHosts]),
    ).toEqual([[id(0), '0', 'ip-10-0-1-22']]);
    expect(out.decision!.reason).toMatch(
      /resumed from \/ckpt\/r1\/step_5200 \(step 5200\) on node 0 \(head\); asked the scheduler to avoid ip-10-0-1-22/,
    );
    expect((await states.get('r1'))!.state).toBe('RESTARTING');
  });

  it('restarts every node with its rank, the node count and node 0 as master when no hardware broke', async () => {
    const runner = new Nodes(() => ok(GONE));
    const { deps, slack } = world(runner);
    const out = await remediate(deps, { runId: 'r1', state: 'TIMED_OUT' }, NOW);
    expect(
      runner.restarts.map((r) => [
        r.instanceId,
        r.parameters.NodeRank,
        r.parameters.NNodes,
        r.parameters.MasterAddr,
      ]),
    ).toEqual([0, 1, 2, 3].map((r) => [id(r), String(r), '4', 'ip-10-0-1-20']));
    expect(out.decision!.reason).toMatch(/resumed from \/ckpt\/r1\/step_5200 \(step 5200\) on all 4 nodes$/);
    // The node whose file went silent first is the culprit when nothing else stands out.
    expect(details(slack)).toMatch(/^culprit: node 2 .*: no node heartbeat for 20m; 3 nodes healthy$/m);
  });

  it('says which nodes could not be examined (agent offline, no instance id)', async () => {
    const runner = new Nodes((i) =>
      i === id(1)
        ? { status: 'Undeliverable', ok: false, output: '', finding: `the SSM agent on ${i} is offline` }
        : ok(GONE),
    );
    const { deps, slack } = world(runner, {}, 4, 3);
    await remediate(deps, { runId: 'r1', state: 'TIMED_OUT' }, NOW);
    expect(runner.diagnosed).toEqual([[id(0), id(1), id(2)]]);
    expect(details(slack)).toMatch(
      /2 not examined \(1: the SSM agent on i-00000000000000001 is offline; 3: no instance_id in nodes\/3\.json\)/,
    );
  });

  it('never claims a checkpoint it did not find: no checkpoint refuses with what would be lost', async () => {
    const runner = new Nodes(
      () => ok(GONE),
      'restart.no_checkpoint=/ckpt/r1\nrestart.refused=no checkpoint under /ckpt/r1\nend=ok\n',
    );
    const { deps, states } = world(runner);
    const out = await remediate(deps, { runId: 'r1', state: 'TIMED_OUT' }, NOW);
    expect(runner.restarts[0]!.parameters.Resume).toBe('require');
    expect(out.decision!.action).toBe('alert');
    expect(out.decision!.reason).toMatch(
      /node 0: no checkpoint under \/ckpt\/r1: not restarting from step 0 after 3d of training \(resume: require; set resume: allow_scratch to start over\)/,
    );
    expect((await states.get('r1'))!.state).toBe('TIMED_OUT');
  });

  it('passes resume: allow_scratch through and says it started from scratch', async () => {
    const runner = new Nodes(() => ok(GONE), 'restart.from_scratch=/ckpt/r1\nrestart.resume_from=\nend=ok\n');
    const { deps } = world(runner, { resume: 'allow_scratch' }, 2);
    const out = await remediate(deps, { runId: 'r1', state: 'TIMED_OUT' }, NOW);
    expect(runner.restarts.map((r) => r.parameters.Resume)).toEqual(['allow_scratch', 'allow_scratch']);
    expect(out.decision!.reason).toMatch(
      /started from scratch: no checkpoint under \/ckpt\/r1 \(resume: allow_scratch\) on all 2 nodes/,
    );
  });

  it('diagnoses a throughput drop on every node and says NCCL runs over sockets where EFA was expected; never restarts', async () => {
    const runner = new Nodes(() => ok('process.alive=true\nnccl.transport=socket\nefa.devices=32\nend=ok\n'));
    const { deps, slack, states } = world(runner, {}, 4, undefined, 'WARNING');
    const out = await remediate(deps, { runId: 'r1', state: 'WARNING' }, NOW);
    expect(runner.diagnosed).toEqual([[id(0), id(1), id(2), id(3)]]);
    expect(runner.restarts).toEqual([]);
    expect(out.decision).toMatchObject({ action: 'alert' });
    expect(details(slack)).toMatch(
      /^diagnosis: NCCL over NET\/Socket, EFA expected \(32 EFA devices present\) — check the aws-ofi-nccl plugin$/m,
    );
    expect(details(slack)).toMatch(
      /^decision: no restart — diagnosis only: the run is degraded, not failed; nothing is restarted$/m,
    );
    expect((await states.get('r1'))!.state).toBe('WARNING');
  });
});
