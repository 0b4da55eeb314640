import { describe, expect, it } from 'vitest';
import { oneRun } from '../../support/oneRun.js';

const M = 60_000;
const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);

function harness(nodes = 4) {
  const { runs, states, slack, check } = oneRun();
  const beatNode = (rank: number, at: number, extra: Record<string, unknown> = {}) =>
    runs.put(
      'r1',
      `nodes/${rank}.json`,
      {
        node_rank: rank,
        nodes,
        instance_id: `i-000000000000000${rank.toString(16)}`,
        hostname: `ip-10-0-1-${20 + rank}`,
        last_updated: at,
        step: 100,
        gpus: [{ index: 0, util: 97 }],
        ...extra,
      },
      at,
    );
  /** Rank 0's run files plus every node file except `skip`. */
  const beat = (at: number, step: number, skip: number[] = []) => {
    runs.put('r1', 'metadata', { run_id: 'r1', phase: 'training', nodes, last_update: at }, at);
    runs.put('r1', 'progress', { step, last_updated: at }, at);
    for (let r = 0; r < nodes; r++) if (!skip.includes(r)) beatNode(r, at);
  };
  return { runs, states, slack, check, beat, beatNode };
}

describe('multi-node runs (protocol v1.1)', () => {
  it('names a silent node while rank 0 still beats, then recovers when it beats again, one alert each', async () => {
    const h = harness();
    h.beat(T0, 10);
    expect((await h.check(T0)).state).toBe('RUNNING');
    for (let m = 1; m <= 11; m++) h.beat(T0 + m * M, 10 + m, m > 0 ? [2] : []);
    const warned = await h.check(T0 + 11 * M);
    expect(warned).toMatchObject({ state: 'WARNING', transitioned: true });
    expect((await h.states.get('r1'))!.reason).toBe(
      'node 2 (i-0000000000000002, ip-10-0-1-22) silent for 11m (threshold 10m) while the run still beats',
    );
    expect(await h.check(T0 + 11 * M + 30_000)).toMatchObject({ transitioned: false });
    h.beat(T0 + 12 * M, 23);
    expect(await h.check(T0 + 12 * M)).toMatchObject({
      state: 'RUNNING',
      from: 'WARNING',
      transitioned: true,
    });
    expect(h.slack.sent.map((a) => `${a.kind} ${a.state}`)).toEqual([
      'transition WARNING',
      'transition RUNNING',
    ]);
  });

  it('names the silent node, not the stale progress.json it caused, and says what to do about it', async () => {
    const h = harness();
    h.beat(T0, 10);
    await h.check(T0);
    // Node 2 dies; the other ranks hang in the collective: progress.json stops too, metadata.json beats.
    for (let m = 1; m <= 11; m++) {
      h.runs.put(
        'r1',
        'metadata',
        { run_id: 'r1', phase: 'training', nodes: 4, last_update: T0 + m * M },
        T0 + m * M,
      );
      for (const r of [0, 1, 3]) h.beatNode(r, T0 + m * M);
    }
    expect(await h.check(T0 + 11 * M)).toMatchObject({ state: 'WARNING' });
    const alert = h.slack.sent.at(-1)!;
    expect(alert.reason).toMatch(/^node 2 \(i-0000000000000002, ip-10-0-1-22\) silent for 11m/);
    expect(alert.action).toMatch(/^A node stopped writing its heartbeat: check that instance/);
  });

  it('counts missing nodes after the startup grace (metadata.json says how many)', async () => {
    const h = harness(4);
    h.beat(T0, 10, [3]);
    expect((await h.check(T0)).state).toBe('RUNNING');
    h.beat(T0 + 16 * M, 20, [3]);
    expect(await h.check(T0 + 16 * M)).toMatchObject({ state: 'WARNING' });
    expect((await h.states.get('r1'))!.reason).toBe(
      '3 of 4 nodes reported (missing rank 3, 16m after start)',
    );
  });

  it('turns a malformed node file into a finding about that node, and clears it when fixed', async () => {
    const h = harness(2);
    h.beat(T0, 10);
    h.runs.put('r1', 'nodes/1.json', '{"node_rank": "one"', T0);
    expect(await h.check(T0)).toMatchObject({ state: 'WARNING' });
    expect((await h.states.get('r1'))!.reason).toMatch(/^invalid node file: nodes\/1\.json/);
    h.beat(T0 + M, 11);
    expect(await h.check(T0 + M)).toMatchObject({ state: 'RUNNING', transitioned: true });
  });

  it('reads no node body and writes nothing in steady state', async () => {
    const h = harness(8);
    h.beat(T0, 10);
    await h.check(T0);
    expect(h.runs.reads.filter((r) => r.includes('/nodes/'))).toHaveLength(8);
    const writes = h.states.writes;
    h.runs.reads.length = 0;
    for (let m = 1; m <= 5; m++) {
      h.beat(T0 + m * M, 10 + m);
      await h.check(T0 + m * M);
    }
    expect(h.runs.reads.filter((r) => r.includes('/nodes/'))).toEqual([]);
    expect(h.states.writes - writes).toBeLessThanOrEqual(1); // progress tracking, at most every half stall threshold
  });

  it('keeps a 256-node run item far below DynamoDB’s 400 KB limit', async () => {
    const h = harness(256);
    h.beat(T0, 10);
    await h.check(T0);
    const rec = (await h.states.get('r1'))!;
    expect(Object.keys(rec.facts.nodes ?? {})).toHaveLength(256);
    expect(JSON.stringify(rec).length).toBeLessThan(100_000);
  });

  it('ignores node files of the attempt before a restart', async () => {
    const h = harness(2);
    h.beat(T0, 10);
    await h.check(T0);
    const rec = (await h.states.get('r1'))!;
    await h.states.update(
      { ...rec, state: 'RESTARTING', restartIssuedAt: T0 + M, version: rec.version + 1 },
      rec.version,
    );
    h.beat(T0 + 2 * M, 0, [1]);
    await h.check(T0 + 2 * M);
    const after = (await h.states.get('r1'))!;
    expect(Object.keys(after.facts.nodes ?? {})).toEqual(['0']);
  });
});
