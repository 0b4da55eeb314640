import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStackFile } from '../../../lambdas/core/protocol/stacks.js';
import { stackVerdict, trainingWait } from '../../../lambdas/core/stacks/index.js';
import {
  RECORDINGS,
  type RecordedOp,
  readRecording,
  replay as replayInto,
} from '../../../local/recording.js';
import { oneRun, replayTarget, THRESHOLDS } from '../../support/oneRun.js';

// Recorded here, on CPU (no device was lent to the session that made it), by `scripts/device-check.sh OUT runs`
// with torch 2.15.0 and the Python client from this repository: torchrun, two single-process "nodes" on gloo;
// node 1's data loader worker blocks for good at batch 20 while node 0 waits for it in all_reduce. Every S3
// write the two client processes made is kept, in order (ops-PID.jsonl: time, op, key; writes/: the bytes),
// with stack_after 10 s and the node files every 3 s. Replayed here into the sweep, write by write.
const recording = (name: string) => readRecording(join(RECORDINGS, name));

/** Replays the writes into the sweep (as run `r1`), checking every 2 s of recorded time; the alerts sent. */
async function replay(ops: readonly RecordedOp[]) {
  const h = oneRun({ thresholds: { ...THRESHOLDS, stallAfterMs: 20_000, staleAfterMs: 60_000 } });
  await replayInto(ops, replayTarget(h), { phaseS: 1, everyS: 2, afterS: 0.5 });
  return h;
}

describe('a hang recorded with real torch (gloo): node 1 in its data loader, node 0 in all_reduce', () => {
  const ops = recording('hang');

  it('the client wrote both nodes’ stacks after stack_after, and rewrote them while stuck', () => {
    const stackPuts = ops.filter((o) => o.op === 'put' && o.key.includes('/stacks/'));
    expect(stackPuts.filter((o) => o.key.endsWith('stacks/0.json')).length).toBeGreaterThanOrEqual(2);
    expect(stackPuts.filter((o) => o.key.endsWith('stacks/1.json')).length).toBeGreaterThanOrEqual(2);
    const lastProgress = Math.max(...ops.filter((o) => o.key.endsWith('progress.json')).map((o) => o.t));
    // progress.json goes out at most every interval (3 s) after the last call: stack_after (10 s) less that.
    expect(Math.min(...stackPuts.map((o) => o.t)) - lastProgress).toBeGreaterThanOrEqual(7);
  });

  it('its real stacks name node 1’s data loader', () => {
    const last = (rank: number) => ops.filter((o) => o.key.endsWith(`stacks/${rank}.json`)).at(-1)!.body!;
    const waits = [0, 1].map((rank) => {
      const p = parseStackFile(last(rank), rank);
      if (!p.ok) throw new Error(p.problem);
      return { rank, wait: trainingWait(p.value) };
    });
    expect(waits.map((w) => w.wait)).toEqual([
      { kind: 'collective', call: 'all_reduce', blocks: undefined, at: 'hang.py:18' },
      { kind: 'data_loader', call: 'DataLoader.__next__', blocks: 'queues.get', at: 'hang.py:16' },
    ]);
    expect(stackVerdict(waits)!.suspects).toEqual([1]);
  });

  it('replayed into the sweep (stall threshold 20 s): one STALLED alert, naming node 1’s data loader', async () => {
    const h = await replay(ops);
    const stalled = h.slack.sent.filter((a) => a.state === 'STALLED');
    expect(stalled).toHaveLength(1);
    expect(stalled[0]!.reason).toMatch(
      /^step 19 has not advanced for \d+s \(threshold 20s\) while heartbeats are fresh; node 0 waits in `all_reduce` \(hang\.py:18\); node 1 is in `DataLoader\.__next__` \(queues\.get, hang\.py:16\): node 1's data loader is the likely cause$/,
    );
    expect((await h.states.get('r1'))!.facts.stacks).toMatchObject({ suspects: [1], family: 'hang' });
  });
});

describe('a frozen node recorded with real torch (gloo): node 1 stopped whole (SIGSTOP), node 0 in all_reduce', () => {
  const ops = recording('frozen');

  it('node 1 wrote nothing after it froze; node 0 wrote its stack', () => {
    const byNode1 = ops.filter((o) => o.key.endsWith('nodes/1.json'));
    const stack0 = ops.find((o) => o.key.endsWith('stacks/0.json'))!;
    expect(byNode1.at(-1)!.t).toBeLessThan(stack0.t - 9);
    expect(ops.some((o) => o.key.endsWith('stacks/1.json'))).toBe(false);
  });

  it('replayed into the sweep: one STALLED alert naming node 1 frozen, before its file passes the stale threshold', async () => {
    const h = await replay(ops);
    const stalled = h.slack.sent.filter((a) => a.state === 'STALLED');
    expect(stalled).toHaveLength(1);
    expect(stalled[0]!.reason).toMatch(
      /; node 0 waits in `all_reduce` \(frozen\.py:\d+\); node 1: no stack; its heartbeat stopped \d+s ago: node 1 is the likely cause \(frozen whole, or gone\)$/,
    );
    expect((await h.states.get('r1'))!.facts.stacks).toMatchObject({ suspects: [1] });
  });
});
