import { describe, expect, it } from 'vitest';
import { oneRun } from '../../support/oneRun.js';
import { stackFile, type WaitName } from '../../support/stacks.js';

const M = 60_000;
const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);

/** A 4-node run that advances until `stuckAt`, then keeps beating at step 367 (every node's writer alive). */
function hang(nodes = 4, frozen: number[] = []) {
  const h = oneRun();
  const beat = (at: number, step: number) => {
    h.runs.put('r1', 'metadata', { run_id: 'r1', phase: 'training', nodes, last_update: at }, at);
    h.runs.put('r1', 'progress', { step, last_updated: at }, at);
    for (let r = 0; r < nodes; r++)
      if (!frozen.includes(r) || step < 367)
        h.runs.put(
          'r1',
          `nodes/${r}.json`,
          { node_rank: r, nodes, instance_id: `i-000000000000000${r}`, step, gpus: [{ index: 0, util: 97 }] },
          at,
        );
  };
  const stacks = (at: number, waits: Partial<Record<number, WaitName>>, step = 367) => {
    for (const [rank, w] of Object.entries(waits))
      h.runs.put('r1', `stacks/${rank}.json`, stackFile(Number(rank), w!, step), at);
  };
  /** Steps advance every minute until minute 5, then stop at 367 while heartbeats go on until `until`. */
  const run = async (until: number) => {
    for (let m = 0; m <= until; m++) {
      beat(T0 + m * M, m <= 5 ? 362 + m : 367);
      await h.check(T0 + m * M);
    }
  };
  return { ...h, beat, stacks, run };
}

const stackReads = (reads: readonly string[]) => reads.filter((r) => r.includes('/stacks/'));

describe('a stalled run is explained by its stacks (protocol v1.2)', () => {
  it('names the node in its data loader while the others wait in all_reduce, in the one STALLED alert', async () => {
    const h = hang();
    await h.run(20);
    h.stacks(T0 + 8 * M, { 0: 'allReduce', 1: 'allReduce', 2: 'dataLoader', 3: 'allReduce' });
    await h.run(50);
    const stalled = h.slack.sent.filter((a) => a.state === 'STALLED');
    expect(stalled).toHaveLength(1);
    expect(stalled[0]!.reason).toMatch(
      /^step 367 has not advanced for \d+m .*; nodes 0, 1, 3 wait in `all_reduce` \(train\.py:88\); node 2 is in `DataLoader\.__next__` \(queue\.get, dataset\.py:41\): node 2's data loader is the likely cause$/,
    );
    expect(stalled[0]!.action).toMatch(/^The reason says where each node's training thread waits/);
    const rec = (await h.states.get('r1'))!;
    expect(rec.facts.stacks).toMatchObject({ suspects: [2], family: 'hang' });
    expect(rec.facts.stacks!.waits['2']).toMatchObject({ kind: 'data_loader', at: 'dataset.py:41' });
    // Each stack file was read once: the next sweeps reuse the verdict until a file changes.
    expect(stackReads(h.runs.reads)).toEqual(['r1/stacks/0', 'r1/stacks/1', 'r1/stacks/2', 'r1/stacks/3']);
  });

  it('never reads stacks of a run that is not stalled (a file left from a long checkpoint)', async () => {
    const h = hang();
    h.stacks(T0 + 2 * M, { 0: 'checkpoint' }, 363);
    for (let m = 0; m <= 40; m += 5) {
      h.beat(T0 + m * M, 362 + m);
      await h.check(T0 + m * M);
    }
    expect((await h.states.get('r1'))!.state).toBe('RUNNING');
    expect(stackReads(h.runs.reads)).toEqual([]);
  });

  it('names a node frozen whole (no stack, its node file stopped) in the STALLED alert', async () => {
    const h = hang(2, [1]);
    await h.run(4);
    h.stacks(T0 + 8 * M, { 0: 'allReduce' });
    await h.run(9);
    // Below the stale threshold (10m) the silent-node rule has not fired yet: the stacks name it.
    await h.run(50);
    const stalled = h.slack.sent.find((a) => a.state === 'STALLED')!;
    expect(stalled.reason).toMatch(/node 1 \(i-0000000000000001\) silent for \d+m \(threshold 10m\)/);
    expect(stalled.reason).toMatch(
      /node 0 waits in `all_reduce` .*node 1: no stack; its heartbeat stopped \d+m ago: node 1 is the likely cause \(frozen whole, or gone\)$/,
    );
    expect((await h.states.get('r1'))!.facts.stacks!.suspects).toEqual([1]);
  });

  it('ignores a stack older than its node’s step (the node moved on), and a run with none says only the stall', async () => {
    const h = hang();
    h.stacks(T0 + 2 * M, { 2: 'dataLoader' }, 300);
    await h.run(50);
    const rec = (await h.states.get('r1'))!;
    expect(rec.state).toBe('STALLED');
    expect(rec.facts.stacks).toBeUndefined();
    expect(rec.reason).toMatch(/while heartbeats are fresh$/);
  });

  it('a hostile or huge stack file is a finding about that node, never a crash', async () => {
    const h = hang(3);
    await h.run(20);
    h.stacks(T0 + 8 * M, { 0: 'allReduce', 1: 'allReduce' });
    h.runs.put('r1', 'stacks/2.json', '{"node_rank": 2, "threads": [{"frames": "rm -rf /"}]}', T0 + 8 * M);
    await h.run(50);
    const rec = (await h.states.get('r1'))!;
    expect(rec.state).toBe('STALLED');
    // Named with its problem, but not blamed: a node that wrote an unusable stack was stuck too, where is unknown.
    expect(rec.reason).toMatch(/node 2: stacks\/2\.json: threads\.0\.frames: [^;]*: no node stands out/);
    expect(rec.facts.stacks!.suspects).toEqual([]);
    h.runs.put('r1', 'stacks/2.json', 'x'.repeat(70_000), T0 + 51 * M);
    await h.check(T0 + 51 * M);
    expect((await h.states.get('r1'))!.reason).toMatch(
      /node 2: stacks\/2\.json is 70000 bytes \(at most 65536\)/,
    );
    // The oversized one was judged from its LIST size: node 2's file was downloaded once, the first time.
    expect(stackReads(h.runs.reads).filter((r) => r === 'r1/stacks/2')).toHaveLength(1);
  });

  it('forgets the stacks when the run runs again', async () => {
    const h = hang();
    await h.run(20);
    h.stacks(T0 + 8 * M, { 0: 'allReduce', 1: 'allReduce', 2: 'dataLoader', 3: 'allReduce' });
    await h.run(50);
    h.beat(T0 + 51 * M, 368);
    await h.check(T0 + 51 * M);
    const rec = (await h.states.get('r1'))!;
    expect(rec.state).toBe('RUNNING');
    expect(rec.facts.stacks).toBeUndefined();
  });
});
