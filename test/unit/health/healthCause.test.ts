import { describe, expect, it } from 'vitest';
import { type NodeObservation, nodeObservation } from '../../../lambdas/core/health/index.js';
import { parseNodeFile } from '../../../lambdas/core/protocol/node.js';
import { jitter, type Minute, nodes, trace } from '../../support/healthTrace.js';

const RATE = 48_200;
type Node = Omit<NodeObservation, 'at'>;
type Gpu = NonNullable<Node['gpuUtil']>[number];
const eight = (gpu: (index: number) => Partial<Gpu>): Gpu[] =>
  Array.from({ length: 8 }, (_, index) => ({ index, util: 97, smMhz: 1980, powerW: 690, ...gpu(index) }));
const raised = (at: (m: number) => Minute) =>
  trace(150, at)
    .events.flatMap((e) => e.raised)
    .filter((f) => f.kind === 'throughput_drop')
    .map((f) => f.text.replace(/^.* since \d\d:\d\d UTC; /, ''));

/** A node file as a Python client with the new rates writes it, read as the sweep reads it. */
function file(body: Record<string, unknown>): Node {
  const parsed = parseNodeFile(new TextEncoder().encode(JSON.stringify(body)), body.node_rank as number);
  if (!parsed.ok) throw new Error(parsed.problem);
  const { at: _, ...n } = nodeObservation(parsed.value, 0);
  return n;
}

describe('node file GPU fields (clocks, power limit, throttle reasons)', () => {
  const body = (gpu: Record<string, unknown>) =>
    new TextEncoder().encode(JSON.stringify({ node_rank: 0, gpus: [{ index: 0, util: 99, ...gpu }] }));

  it('carries SM clock, power and the known throttle reasons into the observation, dropping unknown ones', () => {
    const parsed = parseNodeFile(
      body({
        sm_clock_mhz: 990,
        sm_clock_max_mhz: 1980,
        power_w: 410.5,
        power_limit_w: 700,
        throttle: ['hw_thermal', 'sw_power_cap', 'a_reason_from_a_newer_driver'],
      }),
      0,
    );
    expect(parsed).toMatchObject({ ok: true, problems: [] });
    if (!parsed.ok) return;
    expect(nodeObservation(parsed.value, 0).gpuUtil).toEqual([
      { index: 0, util: 99, smMhz: 990, powerW: 410.5, throttle: ['hw_thermal', 'sw_power_cap'] },
    ]);
    // No reason (an empty list), or none that is known: no `throttle` in the observation at all.
    for (const throttle of [[], ['gpu_boost_v9'], null]) {
      const p = parseNodeFile(body({ throttle }), 0);
      expect(p.ok && nodeObservation(p.value, 0).gpuUtil).toEqual([{ index: 0, util: 99 }]);
    }
  });

  it.each([
    [{ sm_clock_mhz: -1 }, /sm_clock_mhz/],
    [{ power_limit_w: 'high' }, /power_limit_w/],
    [{ throttle: 'hw_thermal' }, /throttle/],
    [{ throttle: [7] }, /throttle/],
    [{ throttle: ['x'.repeat(65)] }, /throttle/],
  ])('a malformed %j is a finding about the node, never a crash', (gpu, want) => {
    const p = parseNodeFile(body(gpu), 0);
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.problem).toMatch(want);
  });
});

describe('why throughput fell, from what the GPUs did', () => {
  // Each case: 4 nodes (or 1) at RATE until minute 100, then what the drop's node files say.
  const run =
    (
      count: number,
      rate: (m: number) => number,
      after: (rank: number) => Partial<Node>,
      before = eight(() => ({})),
    ) =>
    (m: number): Minute => ({
      nodes: nodes(count, rate(m), (r) =>
        m >= 100 ? { gpuUtil: before, ...after(r) } : { gpuUtil: before },
      ),
    });
  const half = (m: number) => (m >= 100 ? RATE / 2 : RATE);

  it.each<[string, (m: number) => Minute, string | undefined]>([
    [
      'idle GPUs while steps advance (one node): the input pipeline',
      run(
        1,
        (m) => (m >= 100 ? RATE / 1000 : RATE),
        () => ({ gpuUtil: eight(() => ({ util: 0, idleS: 120 })) }),
      ),
      'the GPUs waited (idle 100 % of the time): the input pipeline (data loading) is the likely cause',
    ],
    [
      'GPUs half as busy as before while steps advance at half the rate',
      run(1, half, () => ({ gpuUtil: eight(() => ({ util: 45 })) })),
      'the GPUs waited (idle 55 % of the time): the input pipeline (data loading) is the likely cause',
    ],
    [
      "one node's GPUs idle while the others wait for it",
      run(4, half, (r) => (r === 3 ? { gpuUtil: eight(() => ({ util: 0 })) } : {})),
      'the GPUs of node 3 waited (idle 100 % of the time): the input pipeline (data loading) is the likely cause',
    ],
    [
      'a GPU hot and slower than before (thermal reason)',
      run(4, half, (r) =>
        r === 2 ? { gpuUtil: eight((i) => (i === 3 ? { smMhz: 1410, throttle: ['hw_thermal'] } : {})) } : {},
      ),
      'GPU thermal/power throttling (node 2 GPU 3: hw_thermal, SM 1980 → 1410 MHz)',
    ],
    [
      'a single node whose GPUs run at lower clocks, without a reason from the writer',
      run(1, half, () => ({ gpuUtil: eight((i) => ({ smMhz: i === 5 ? 1200 : 1500 })) })),
      'GPU thermal/power throttling (GPU 5: SM 1980 → 1200 MHz)',
    ],
    [
      'at the power cap with lower clocks and power',
      run(1, half, () => ({
        gpuUtil: eight((i) => (i === 6 ? { smMhz: 1500, powerW: 520, throttle: ['sw_power_cap'] } : {})),
      })),
      'GPU thermal/power throttling (GPU 6: sw_power_cap, SM 1980 → 1500 MHz, 690 → 520 W)',
    ],
    [
      'at the power cap at the usual clocks (normal at full load): busy as before',
      run(4, half, () => ({ gpuUtil: eight(() => ({ throttle: ['sw_power_cap'] })) })),
      'the GPUs stayed busy (97 %, clocks as before): communication (NCCL falling back from EFA to sockets: check the transport) or a slower node',
    ],
    [
      'busy as before on one node',
      run(1, half, () => ({})),
      'the GPUs stayed busy (97 %, clocks as before): neither the input pipeline nor throttling; look for more work per step (batch, sequence length) or another process on the GPUs',
    ],
    [
      'busy as before on 16 nodes, one of them slower than the others',
      (m) => ({
        nodes: nodes(16, m >= 100 ? RATE * 0.6 : RATE, (r) => ({
          gpuUtil: eight(() => ({})),
          ...(r === 5 && m >= 100 ? { hostname: 'ip-10-0-1-23', stepTimeS: 2.1 } : {}),
        })),
      }),
      'the GPUs stayed busy (97 %, clocks as before): communication (NCCL falling back from EFA to sockets: check the transport) or a slower node (node 5 (i-0abc5, ip-10-0-1-23): 2.1 s per step vs 1.4 s for the others)',
    ],
    [
      'steps stopped on two nodes, node 1 idle (not a slowdown: never NCCL)',
      (m) => ({
        nodes: nodes(2, m >= 100 ? 0 : RATE, (r) => ({
          gpuUtil: eight(() => ({ util: r === 1 && m >= 100 ? 0 : 97 })),
        })),
      }),
      // A stop is no slowdown: no throughput finding at all (issue 30: the stall rules own it, and name the culprit).
      undefined,
    ],
    [
      'steps stopped with busy GPUs',
      run(
        4,
        (m) => (m >= 100 ? 0 : RATE),
        () => ({}),
      ),
      undefined,
    ],
    [
      'no GPU readings on 4 nodes',
      (m) => ({ nodes: nodes(4, half(m), () => ({ gpuUtil: undefined })) }),
      'a frequent cause is NCCL falling back from EFA to sockets',
    ],
  ])('%s', (_, at, want) => {
    expect(raised(at)).toEqual(want === undefined ? [] : [want]);
  });

  it('stays quiet on ±20 % jitter with GPU clocks, power and reasons that vary', () => {
    for (const seed of [1, 2, 3]) {
      const j = jitter(seed);
      const { events } = trace(12 * 60, () => ({
        nodes: nodes(4, RATE * (1 + 0.2 * j()), () => ({
          gpuUtil: eight(() => ({
            util: 90 + 10 * j(),
            smMhz: 1900 + 80 * j(),
            powerW: 650 + 50 * j(),
            ...(j() > 0 ? { throttle: ['sw_power_cap' as const] } : {}),
          })),
        })),
      }));
      expect(events.flatMap((e) => e.raised.map((f) => f.text))).toEqual([]);
    }
  });
});

describe('rates that follow the run (a node file covers the time since the previous one)', () => {
  // The replay: one H100 node, a file every 5 s, read every 5 s; at T its data loader slows 1000×
  // (each step waits 1.5 s for data, the GPU at 0 %). Each file's samples/s covers the 5 s since the one
  // before, as the Python client now writes it; idle_s counts from the first write that found the GPU idle.
  const I = 5_000;
  const BEFORE = 140_000;
  const settings = { telemetryEveryMs: I, warmupMs: 30_000 };
  const at = (T: number, slow: number, idle: boolean) => (k: number) => {
    const inDrop = Math.min(1, Math.max(0, k - T)); // share of (k-1, k] after the onset
    const firstIdle = Math.ceil(T);
    const gpu = k >= T && idle ? { util: 0, idle_s: (k - firstIdle) * (I / 1000) } : { util: 99 };
    return {
      nodes: [
        file({
          node_rank: 0,
          nodes: 1,
          step: k * 50,
          step_time_s: k >= T ? 1.5 : 0.1,
          samples_per_s: BEFORE * (1 - inDrop) + (BEFORE / slow) * inDrop,
          gpus: [{ index: 0, sm_clock_mhz: idle || k < T ? 1980 : 1200, power_w: 680, throttle: [], ...gpu }],
        }),
      ],
    };
  };
  /** The first drop alert: when (in writer intervals after the onset) and the percentage it says. */
  const first = (T: number, slow: number, idle = true) => {
    const { events } = trace(120, at(T, slow, idle), settings, { tick: I });
    const e = events.find((x) => x.raised.some((f) => f.kind === 'throughput_drop'))!;
    const text = e.raised.find((f) => f.kind === 'throughput_drop')!.text;
    return { after: e.minute - T, pct: Number(/^throughput fell (\d+) %/.exec(text)![1]), text };
  };
  const onsets = [80, 80.1, 80.3, 80.5, 80.7, 80.9, 80.99];

  it.each(onsets)(
    'tells a 1000× data-loader slowdown starting at interval %d within two writer intervals, at its size',
    (T) => {
      const { after, pct, text } = first(T, 1000);
      expect(after).toBeLessThanOrEqual(2);
      expect(Math.abs(pct - 99.9)).toBeLessThanOrEqual(5);
      expect(text).toMatch(
        /; the GPUs waited \(idle 100 % of the time\): the input pipeline \(data loading\) is the likely cause$/,
      );
    },
  );

  // GPUs busy (throttled to 60 %): no idle_s to vouch for the file, so two files must show it. The first file
  // after the onset shows it when at least half its interval was slow (30 % of 60 %); else the third does.
  it.each(onsets)(
    'tells a throttled 40 %-rate GPU starting at interval %d within 2, or 2.5 when it began late',
    (T) => {
      const { after, pct, text } = first(T, 1 / 0.4, false);
      const shownByFirst = Math.ceil(T) - T >= 0.3 / 0.6 || Number.isInteger(T);
      expect(after).toBeLessThanOrEqual(shownByFirst ? 2 : 2 + 0.3 / 0.6);
      expect(Math.abs(pct - 60)).toBeLessThanOrEqual(5);
      expect(text).toMatch(/; GPU thermal\/power throttling \(GPU 0: SM 1980 → 1200 MHz\)$/);
    },
  );

  it('measures files written every minute when the telemetry period is shorter (5 s), and tells the drop in two', () => {
    // Sweeps every 5 s see the same file 11 times out of 12: a period is one writer interval, not four telemetry periods.
    const drop = (m: number) => ({ nodes: nodes(2, m >= 12 * 60 ? RATE / 2 : RATE) });
    const { events } = trace(12 * 90, drop, settings, { tick: I, readEvery: 1, writtenEvery: 12 });
    const raised = events.filter((e) => e.raised.some((f) => f.kind === 'throughput_drop'));
    expect(raised.map((e) => (e.minute - 12 * 60) / 12)).toEqual([1]);
  });
});
