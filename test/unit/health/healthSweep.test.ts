import { describe, expect, it } from 'vitest';
import { statusRow } from '../../../bin/commands/status.js';
import { DEFAULT_HEALTH_SETTINGS } from '../../../lambdas/core/health/index.js';
import { oneRun } from '../../support/oneRun.js';

const M = 60_000;
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);
const NODES = 4;

/** A 4-node run swept every minute, as the Lambda would, with the health rules on (default settings). */
function world() {
  const { runs, states, slack, check: sweep } = oneRun({ health: DEFAULT_HEALTH_SETTINGS });
  /** Minute `m`: every node writes its file; `node(rank, m)` says what it reports. */
  const write = (m: number, node: (rank: number) => Record<string, unknown>, step: number) => {
    const at = T0 + m * M;
    runs.put('r1', 'metadata', { run_id: 'r1', phase: 'training', nodes: NODES, last_update: at }, at);
    runs.put('r1', 'progress', { step, last_updated: at }, at);
    for (let r = 0; r < NODES; r++)
      runs.put(
        'r1',
        `nodes/${r}.json`,
        {
          node_rank: r,
          nodes: NODES,
          instance_id: `i-000000000000000${r}a`,
          hostname: `ip-10-0-0-${r}`,
          ...node(r),
        },
        at,
      );
  };
  return { runs, states, slack, sweep, write };
}
const busy = Array.from({ length: 8 }, (_, index) => ({ index, util: 96 }));
const idle = Array.from({ length: 8 }, (_, index) => ({ index, util: 0 }));
// ±10 % deterministic jitter: healthy noise that must never alert.
const jitter = (m: number, r: number) => 1 + 0.1 * Math.sin(m * 1.7 + r);

describe('health rules in the sweep', () => {
  it('reports a 50 % throughput drop within two telemetry periods and a sweep, once, and its recovery', async () => {
    const w = world();
    let warnedAt: number | undefined;
    for (let m = 0; m <= 130; m++) {
      const dropped = m >= 80 && m < 110;
      w.write(
        m,
        (r) => ({ step: 100 * m, tokens_per_s: (dropped ? 24_000 : 48_000) * jitter(m, r), gpus: busy }),
        100 * m,
      );
      const out = await w.sweep(T0 + m * M + 30_000);
      const rec = (await w.states.get('r1'))!;
      // The sweep counts the run under its finding (the dashboard's DegradedRuns metric).
      expect(out.degraded?.includes('throughput_drop') ?? false).toBe(rec.state === 'WARNING');
      if (rec.state === 'WARNING' && warnedAt === undefined) {
        warnedAt = m;
        // What `trainwatch status` shows then: the rate beside the run's own baseline, and the GPUs.
        const row = statusRow(rec, T0 + m * M + 30_000, DEFAULT_HEALTH_SETTINGS);
        expect(row).toMatchObject({ rate_unit: 'tokens', gpu_util: 96 });
        expect(row.rate! / row.baseline!).toBeLessThan(0.7);
        expect(row.health.throughput_drop).toMatch(/^throughput fell/);
      }
    }
    expect(warnedAt).toBeDefined();
    expect(warnedAt! - 80).toBeLessThanOrEqual(2 * 5 + 1);
    const sent = w.slack.sent.map((a) => `${a.state}: ${a.reason}`);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(
      /^WARNING: throughput fell [45]\d % \(1\d\dk → \d\d+k tokens\/s\) since 13:\d\d UTC; the GPUs stayed busy \(96 %\): communication \(NCCL falling back from EFA to sockets: check the transport\) or a slower node/,
    );
    expect(sent[1]).toMatch(/^RUNNING: /);
    // Node bodies: at most one read per node per telemetry period (5 sweeps), never every sweep.
    const nodeReads = w.runs.reads.filter((r) => r.includes('/nodes/')).length;
    expect(nodeReads / (NODES * 131)).toBeLessThanOrEqual(0.25);
  });

  it('names the node whose GPUs sit idle while its steps stop, with the GPU-hours wasted', async () => {
    const w = world();
    let warned: string | undefined;
    let at = 0;
    for (let m = 0; m <= 60 && !warned; m++) {
      const stuck = m >= 30;
      w.write(
        m,
        (r) => ({ step: r === 2 && stuck ? 3000 : 100 * m, gpus: r === 2 && stuck ? idle : busy }),
        100 * m,
      );
      await w.sweep(T0 + m * M + 30_000);
      const rec = (await w.states.get('r1'))!;
      if (rec.state === 'WARNING') [warned, at] = [rec.reason, m];
    }
    expect(warned).toMatch(
      /^node 2 \(i-0000000000000002a, ip-10-0-0-2\): GPUs 0–7 idle \(≤ 5 % utilisation\) for 1\dm( \d+s)?: [\d.]+ GPU-hours wasted/,
    );
    expect(at - 30).toBeLessThanOrEqual(15 + 5 + 1);
  });

  it('raises nothing over 6 hours of noisy healthy training with evaluation and checkpoint pauses', async () => {
    const w = world();
    for (let m = 0; m <= 360; m++) {
      const phase = m % 60 >= 50 && m % 60 < 55 ? 'evaluation' : m % 90 === 45 ? 'checkpointing' : 'training';
      const slow = phase !== 'training';
      w.write(
        m,
        (r) => ({
          step: 100 * m,
          tokens_per_s: slow ? 5_000 : 48_000 * (1 + 0.2 * Math.sin(m * 0.9 + r)),
          gpus: slow ? idle : busy,
        }),
        100 * m,
      );
      w.runs.put(
        'r1',
        'metadata',
        { run_id: 'r1', phase, nodes: NODES, last_update: T0 + m * M },
        T0 + m * M,
      );
      await w.sweep(T0 + m * M + 30_000);
    }
    expect(w.slack.sent.map((a) => `${a.state}: ${a.reason}`)).toEqual([]);
  });
});
