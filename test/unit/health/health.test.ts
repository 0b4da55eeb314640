import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lambdas/core/base/errors.js';
import {
  DEFAULT_HEALTH_SETTINGS,
  effectiveHealthSettings,
  formatRate,
  HEALTH_FINDING_KINDS,
  HEALTH_METRICS,
  healthOverrides,
  healthStatus,
  judgeHealth,
  nodeObservation,
  parsePercent,
} from '../../../lambdas/core/health/index.js';
import { parseNodeFile } from '../../../lambdas/core/protocol/node.js';
import { loadSettings } from '../../../lambdas/settings/index.js';
import { jitter, MIN, type Minute, nodes, START, trace } from '../../support/healthTrace.js';

const RATE = 48_200;
const kinds = (e: { raised: readonly { kind: string }[] }[]) => e.flatMap((x) => x.raised.map((f) => f.kind));

describe('health settings', () => {
  it.each([
    ['30%', 0.3],
    ['30 %', 0.3],
    ['0.3', 0.3],
    ['12.5%', 0.125],
    ['0%', undefined],
    ['100%', undefined],
    ['thirty', undefined],
  ])('parsePercent(%j) is %j', (text, want) => expect(parsePercent(text)).toBe(want));

  /** The health settings as the runtime reads them (registry: lambdas/settings/registry.ts). */
  const parseHealthEnv = (env: Record<string, string>) => ({
    ...DEFAULT_HEALTH_SETTINGS,
    ...loadSettings({ TRAINWATCH_BUCKET: 'b', TRAINWATCH_TABLE: 't', ...env }).health,
  });

  it('reads the environment, defaults where unset, and names a bad setting', () => {
    expect(parseHealthEnv({})).toEqual(DEFAULT_HEALTH_SETTINGS);
    const s = parseHealthEnv({
      TRAINWATCH_THROUGHPUT_DROP: '40%',
      TRAINWATCH_TELEMETRY_EVERY: '2m',
      TRAINWATCH_IDLE_GPU_AFTER: '30m',
      TRAINWATCH_STRAGGLER_RATIO: '1.5',
      TRAINWATCH_HEALTH_EXCLUDED_PHASES: 'setup, eval',
      TRAINWATCH_HEALTH_CHECKS: 'off',
    });
    expect(s).toMatchObject({
      throughputDrop: 0.4,
      telemetryEveryMs: 2 * MIN,
      idleGpuAfterMs: 30 * MIN,
      stragglerRatio: 1.5,
      excludedPhases: ['setup', 'eval'],
      enabled: false,
    });
    expect(() => parseHealthEnv({ TRAINWATCH_THROUGHPUT_DROP: '130%' })).toThrow(ConfigError);
    expect(() => parseHealthEnv({ TRAINWATCH_IDLE_GPU_AFTER: 'soon' })).toThrow(
      /TRAINWATCH_IDLE_GPU_AFTER="soon"/,
    );
    expect(() => parseHealthEnv({ TRAINWATCH_STRAGGLER_RATIO: '0.9' })).toThrow(/above 1/);
  });

  it.each([
    [{ throughput_drop: '40%' }, { throughputDrop: 0.4 }],
    [{ throughput_drop: 40 }, { throughputDrop: 0.4 }],
    [{ throughput_drop: 0.25 }, { throughputDrop: 0.25 }],
    [{ idle_gpu_after: '45m' }, { idleGpuAfterMs: 45 * MIN }],
    [{ idle_gpu_after: 30 }, { idleGpuAfterMs: 30 * MIN }],
    [{ straggler_ratio: 1.5 }, { stragglerRatio: 1.5 }],
    [{ health_warmup: '20m' }, { warmupMs: 20 * MIN }],
    [{ health_checks: false }, { enabled: false }],
  ])('metadata.json %j overrides %j', (meta, want) => {
    const { overrides, problems } = healthOverrides(meta);
    expect(problems).toEqual([]);
    expect(overrides).toEqual(want);
    expect(effectiveHealthSettings(DEFAULT_HEALTH_SETTINGS, overrides)).toEqual({
      ...DEFAULT_HEALTH_SETTINGS,
      ...want,
    });
  });

  it('names a bad override and keeps the others', () => {
    const { overrides, problems } = healthOverrides({
      throughput_drop: 'lots',
      straggler_ratio: 0.8,
      idle_gpu_after: '20m',
    });
    expect(overrides).toEqual({ idleGpuAfterMs: 20 * MIN });
    expect(problems).toEqual([
      'metadata.json: throughput_drop="lots" is not a percentage between 0 and 100 (e.g. "40%"): ignored',
      'metadata.json: straggler_ratio=0.8 is not a ratio above 1 (e.g. 1.5): ignored',
    ]);
  });

  it('has one CloudWatch metric per finding kind', () => {
    expect(Object.keys(HEALTH_METRICS).sort()).toEqual([...HEALTH_FINDING_KINDS].sort());
    expect(new Set(Object.values(HEALTH_METRICS)).size).toBe(HEALTH_FINDING_KINDS.length);
  });

  it.each([
    [48_200, '48.2k'],
    [23_149, '23.1k'],
    [1_500_000, '1.5M'],
    [999_700, '1M'],
    [512, '512'],
    [0.7142, '0.714'],
  ])('formatRate(%d) is %s', (x, want) => expect(formatRate(x)).toBe(want));
});

describe('throughput drop', () => {
  it('warns with the rate, the baseline, since when and the likely cause', () => {
    // 16 nodes at 48.2k tokens/s; NCCL falls back to sockets at 14:02, the 14:05 reading shows it.
    const { events } = trace(150, (m) => ({ nodes: nodes(16, m >= 122 ? 23_100 : RATE) }));
    expect(events.map((e) => e.minute)).toEqual([130]);
    const [f] = events[0]!.raised;
    expect(f).toMatchObject({ kind: 'throughput_drop', key: 'health.throughput_drop', page: true });
    expect(f!.text).toBe(
      'throughput fell 52 % (48.2k → 23.1k tokens/s) since 14:05 UTC; the GPUs stayed busy (97 %): communication (NCCL falling back from EFA to sockets: check the transport) or a slower node',
    );
  });

  it('names the frequent causes on a single node without GPU readings, and counts steps/s when no rate is reported', () => {
    const { events } = trace(150, (m) => ({ step: m < 100 ? m * 120 : 12_000 + (m - 100) * 48 }));
    expect(events[0]!.raised[0]!.text).toBe(
      'throughput fell 60 % (2 → 0.8 steps/s) since 13:40 UTC; frequent causes are GPU thermal or power throttling and a slower input pipeline',
    );
  });

  // Two telemetry periods (5m each) plus one sweep (1m), wherever in a period the drop falls.
  it.each([100, 101, 102.5, 103, 104, 104.5, 105])(
    'reports a drop to half the rate at minute %d within 11 minutes',
    (d) => {
      const tokens = trace(140, (m) => ({ nodes: nodes(8, m >= d ? RATE / 2 : RATE) }));
      const steps = trace(140, (m) => ({ step: Math.round(120 * Math.min(m, d) + 60 * Math.max(0, m - d)) }));
      for (const { events } of [tokens, steps]) {
        expect(kinds(events)).toEqual(['throughput_drop']);
        expect(events[0]!.minute - d).toBeLessThanOrEqual(11);
      }
    },
  );

  it('counts a tokens/s reading taken after a checkpoint ended, so a drop right after one is not late', () => {
    // The sweep sees a checkpoint at 97; the rate halves at 98. The node files read at 100 were written
    // after the pause and already show the drop: the 105 reading confirms it (9 minutes, not 12).
    const ckpt = (m: number) => (m === 97 ? 'checkpointing' : 'training');
    const tokens = trace(140, (m) => ({ phase: ckpt(m), nodes: nodes(8, m >= 98 ? RATE / 2 : RATE) }));
    expect(tokens.events.map((e) => [e.minute, kinds([e])])).toEqual([[105, ['throughput_drop']]]);
    // steps/s is an average over the period since the last reading, and the one ending at 100 holds the
    // pause: it is not measured, so the drop needs the two periods after it.
    const steps = trace(140, (m) => ({
      phase: ckpt(m),
      step: Math.round(120 * Math.min(m, 98) + 60 * Math.max(0, m - 98)),
    }));
    expect(steps.events.map((e) => [e.minute, kinds([e])])).toEqual([[110, ['throughput_drop']]]);
  });

  it('recovers once when the rate comes back, and never flaps around the threshold', () => {
    const rate = (m: number) => {
      if (m < 100) return RATE;
      if (m < 130) return RATE / 2;
      if (m < 200) return RATE * (m % 10 < 5 ? 0.6 : 0.8); // hovering 20–40 % below
      return RATE * 0.95;
    };
    const { events, last } = trace(260, (m) => ({ nodes: nodes(4, rate(m)) }));
    expect(events.map((e) => [e.minute, kinds([e]), e.cleared.map((c) => c.kind)])).toEqual([
      [105, ['throughput_drop'], []],
      [200, [], ['throughput_drop']],
    ]);
    expect(events[1]!.cleared[0]!.text).toBe(
      'throughput recovered: 45.8k tokens/s (baseline 48.2k tokens/s)',
    );
    expect(last.findings).toEqual([]);
    expect(last.rate).toMatchObject({ unit: 'tokens', label: 'tokens/s', current: RATE * 0.95 });
  });

  it('holds an active drop through an evaluation instead of clearing and raising it again', () => {
    const { events, last } = trace(200, (m) => {
      const evaluating = m >= 130 && m < 160;
      return { phase: evaluating ? 'evaluation' : 'training', nodes: nodes(4, m >= 100 ? RATE / 2 : RATE) };
    });
    expect(kinds(events)).toEqual(['throughput_drop']);
    expect(events.flatMap((e) => e.cleared)).toEqual([]);
    expect(last.findings.map((f) => f.kind)).toEqual(['throughput_drop']);
  });
});

/** Healthy runs that are noisy, pause and warm up: none may raise anything in 12 hours. */
const noisy: [string, (j: () => number) => (m: number) => Minute][] = [
  ['±20 % jitter on every reading', (j) => () => ({ nodes: nodes(8, RATE * (1 + 0.2 * j())) })],
  [
    'an evaluation of 15m every hour (no training tokens, GPUs half busy)',
    () => (m) =>
      m % 60 >= 40 && m % 60 < 55
        ? { phase: 'evaluation', nodes: nodes(8, 0, () => ({ gpuUtil: [{ index: 0, util: 50 }] })) }
        : { nodes: nodes(8, RATE) },
  ],
  [
    'a checkpoint pause of 3m every 30m (GPUs idle, no step time)',
    (j) => (m) =>
      m % 30 >= 27
        ? {
            phase: 'checkpointing',
            nodes: nodes(4, 0, () => ({ stepTimeS: undefined, gpuUtil: [{ index: 0, util: 0 }] })),
          }
        : { nodes: nodes(4, RATE * (1 + 0.15 * j())) },
  ],
  [
    'a 40 s checkpoint no sweep sees, just before a reading, every 30m',
    (j) => (m) => ({ nodes: nodes(8, RATE * (m % 30 === 0 ? 0.33 : 1 + 0.2 * j())) }),
  ],
  [
    'warm-up: setup 4m, then idle GPUs and a slow ramp until 10m',
    () => (m) =>
      m < 4
        ? { phase: 'setup', nodes: nodes(2, 0, () => ({ gpuUtil: [{ index: 0, util: 0 }] })) }
        : m < 10
          ? {
              nodes: nodes(2, (RATE * m) / 10, () => ({
                stepTimeS: 14 / m,
                gpuUtil: [{ index: 0, util: 2 }],
              })),
            }
          : { nodes: nodes(2, RATE) },
  ],
  [
    'steps/s only, with jitter, evaluations and checkpoints',
    (j) => {
      let step = 0;
      return (m) => {
        const phase = m % 60 >= 45 ? 'evaluation' : m % 20 >= 18 ? 'checkpointing' : 'training';
        if (phase === 'training') step += Math.round(120 * (1 + 0.2 * j()));
        return { phase, step };
      };
    },
  ],
  [
    'an occasional slow reading (−60 %) once an hour',
    (j) => (m) => ({ nodes: nodes(4, RATE * (m % 60 === 35 ? 0.4 : 1 + 0.2 * j())) }),
  ],
  [
    'step times ±10 % per node (no straggler)',
    (j) => () => ({ nodes: nodes(16, RATE, () => ({ stepTimeS: 1.4 * (1 + 0.1 * j()) })) }),
  ],
];

describe('no false alarms', () => {
  it.each(noisy)('stays quiet: %s', (_, make) => {
    for (const seed of [1, 2, 3]) {
      const { events } = trace(12 * 60, make(jitter(seed)));
      expect(events.map((e) => `${e.minute}: ${e.raised.map((f) => f.text).join('; ')}`)).toEqual([]);
    }
  });

  it('judges nothing while the run is not alive, nor when a run turns the checks off', () => {
    const dead = trace(120, (m) => ({ alive: m < 60, nodes: nodes(2, m < 60 ? RATE : 0) }));
    expect(dead.events).toEqual([]);
    const off = trace(120, (m) => ({ nodes: nodes(2, m < 60 ? RATE : RATE / 3) }), { enabled: false });
    expect(off.events).toEqual([]);
  });

  it('starts afresh on a new attempt: its own warm-up and baseline', () => {
    // Attempt 2 (from minute 120) runs on slower instances: a new normal, not a drop.
    const { events, state } = trace(
      300,
      (m) => ({ nodes: nodes(4, m < 120 ? RATE : RATE / 2) }),
      {},
      {
        attempt: (m) =>
          m < 120 ? { attempt: 1, startedAt: START } : { attempt: 2, startedAt: START + 120 * MIN },
      },
    );
    expect(events).toEqual([]);
    expect(state?.attempt).toBe(2);
    expect(state?.rate.base.every((r) => r === RATE / 2)).toBe(true);
  });
});

describe('straggler node', () => {
  const slow =
    (from: number, until = Number.POSITIVE_INFINITY, time = 2.1) =>
    (m: number) => ({
      nodes: nodes(16, RATE, (r) =>
        r === 5
          ? { hostname: 'ip-10-0-1-23', stepTimeS: m >= from && m < until ? time : 1.4 }
          : { stepTimeS: 1.4 },
      ),
    });

  it('names the node, its step time, the others and for how long, after two whole periods', () => {
    const { events } = trace(140, slow(100, 130));
    expect(events.map((e) => [e.minute, kinds([e]), e.cleared.map((c) => c.kind)])).toEqual([
      [110, ['straggler'], []],
      [130, [], ['straggler']],
    ]);
    expect(events[0]!.raised[0]).toMatchObject({ kind: 'straggler', page: true, nodes: [5] });
    expect(events[0]!.raised[0]!.text).toBe(
      'node 5 (i-0abc5, ip-10-0-1-23) is a straggler: 2.1 s per step vs 1.4 s median of the other 15 nodes for 10m',
    );
  });

  it.each([
    ['1.25× the others', slow(100, Number.POSITIVE_INFINITY, 1.75), []],
    ['slow for two readings only', slow(100, 110), []],
    [
      'the run has only two nodes (either could be the slow one)',
      (m: number) => ({ nodes: nodes(2, RATE, (r) => ({ stepTimeS: r === 1 && m >= 100 ? 2.1 : 1.4 })) }),
      [],
    ],
    [
      'slow only while checkpointing',
      (m: number) => ({ ...slow(100, 130)(m), phase: m >= 98 && m < 131 ? 'checkpointing' : 'training' }),
      [],
    ],
  ])('does not call a node a straggler when %s', (_, at, want) => {
    expect(kinds(trace(200, at).events)).toEqual(want);
  });

  it('counts a reading once, however often the sweep passes it', () => {
    // The sweep hands over the same node files every minute (say, an unchanged ETag): one reading per period.
    const { events } = trace(
      108,
      (m) => slow(100)(Math.floor(m / 5) * 5),
      {},
      { readEvery: 1, writtenEvery: 5 },
    );
    expect(kinds(events)).toEqual([]);
  });

  it('keeps a confirmed straggler hovering just under the ratio (no flapping)', () => {
    const { events } = trace(200, (m) =>
      slow(100, Number.POSITIVE_INFINITY, m < 115 ? 2.1 : m % 10 < 5 ? 1.75 : 1.9)(m),
    );
    expect(kinds(events)).toEqual(['straggler']);
    expect(events.flatMap((e) => e.cleared)).toEqual([]);
  });
});

describe('idle GPUs and data-bound nodes', () => {
  // Node 3's data loader deadlocks at minute 62: its GPUs fall to 0 %, every step stops, the others spin in NCCL.
  const deadlock =
    (from: number, gpus = [0, 1, 2, 3, 4, 5, 6, 7], advance = false) =>
    (m: number) => ({
      step: advance || m < from ? m * 100 : from * 100,
      nodes: nodes(4, RATE, (r) => ({
        step: advance || m < from ? m * 100 : from * 100,
        gpuUtil: Array.from({ length: 8 }, (_, index) => ({
          index,
          util: r === 3 && m >= from && gpus.includes(index) ? 0 : 97,
        })),
      })),
    });

  it('warns within the idle threshold plus one period, naming the node, the GPUs and the GPU-hours', () => {
    const { events } = trace(90, deadlock(62));
    const idle = events.find((e) => e.raised.some((f) => f.kind === 'idle_gpus'))!;
    expect(idle.minute - 62).toBeLessThanOrEqual(15 + 5);
    const f = idle.raised.find((x) => x.kind === 'idle_gpus')!;
    expect(f).toMatchObject({ page: true, nodes: [3] });
    expect(f.text).toBe('node 3 (i-0abc3): GPUs 0–7 idle (≤ 5 % utilisation) for 15m: 2.0 GPU-hours wasted');
  });

  // The writer samples its GPUs every minute and says how long they have been at ≤ 5 % (idle_s).
  const withIdleS =
    (from: number, phase: (m: number) => string = () => 'training') =>
    (m: number) => {
      const x = deadlock(from)(m);
      return {
        ...x,
        phase: phase(m),
        nodes: x.nodes.map((n) => ({
          ...n,
          gpuUtil: n.gpuUtil?.map((g) => (g.util <= 5 ? { ...g, idleS: (m - from) * 60 } : g)),
        })),
      };
    };
  const idleAt = (events: { minute: number; raised: readonly { kind: string }[] }[]) =>
    events.find((e) => e.raised.some((f) => f.kind === 'idle_gpus'))?.minute;

  it("counts idle time from the writer's idle_s: the idle threshold after the GPUs went idle, not after the read", () => {
    // Idle from 62; first read at 65 says idle_s 180: since 62, a WARNING at 77 (without idle_s: 80).
    expect(idleAt(trace(90, withIdleS(62)).events)).toBe(62 + 15);
    expect(idleAt(trace(90, deadlock(62)).events)).toBe(65 + 15);
    const { last } = trace(77, withIdleS(62));
    expect(last.findings.find((f) => f.kind === 'idle_gpus')?.text).toMatch(
      /for 15m: 2\.0 GPU-hours wasted$/,
    );
  });

  it('never counts idle_s from before an excluded phase the sweep saw, nor with a stricter threshold than the writer', () => {
    // A checkpoint until 62 (GPUs resting), then the loader deadlocks: idle_s says 55, counted from the
    // last checkpointing sweep (62), not 55.
    const ckpt = trace(
      90,
      withIdleS(55, (m) => (m >= 55 && m <= 62 ? 'checkpointing' : 'training')),
    );
    expect(idleAt(ckpt.events)).toBe(62 + 15);
    // At ≤ 2 % the writer's ≤ 5 % duration could overstate: the first file that shows it counts.
    expect(idleAt(trace(90, withIdleS(62), { idleGpuUtil: 2 }).events)).toBe(65 + 15);
  });

  it('counts the GPU-hours wasted so far in the finding it keeps', () => {
    const { last } = trace(87, deadlock(62));
    expect(last.findings.find((f) => f.kind === 'idle_gpus')?.text).toBe(
      'node 3 (i-0abc3): GPUs 0–7 idle (≤ 5 % utilisation) for 22m: 2.9 GPU-hours wasted',
    );
    // status, later, from the stored state alone
    const later = healthStatus(last.state, START + 117 * MIN, DEFAULT_HEALTH_SETTINGS);
    expect(later.findings.find((f) => f.kind === 'idle_gpus')?.text).toMatch(
      /for 52m: 6\.9 GPU-hours wasted$/,
    );
    expect(later.rate).toMatchObject({ label: 'tokens/s', current: RATE, baseline: RATE });
  });

  it('names only the idle GPUs of a node', () => {
    const { last } = trace(90, deadlock(62, [4, 5, 6, 7]));
    expect(last.findings.find((f) => f.kind === 'idle_gpus')?.text).toMatch(
      /^node 3 \(i-0abc3\): GPUs 4–7 idle/,
    );
  });

  it('reports low utilisation while steps advance as data-bound: status, not a page', () => {
    const { events, last } = trace(90, deadlock(62, [0, 1, 2, 3, 4, 5, 6, 7], true));
    expect(kinds(events)).toEqual(['data_bound']);
    expect(last.findings).toEqual([
      expect.objectContaining({ kind: 'data_bound', key: 'health.data_bound', page: false, nodes: [3] }),
    ]);
    expect(last.findings[0]!.text).toContain('while steps still advance: likely data-bound');
  });

  it.each([
    [
      'while checkpointing',
      (m: number) => ({ ...deadlock(62)(m), phase: m >= 60 ? 'checkpointing' : 'training' }),
    ],
    ['during warm-up', (m: number) => deadlock(1)(Math.max(m, 0))],
    ['when the run is not alive', (m: number) => ({ ...deadlock(62)(m), alive: m < 62 })],
  ])('never calls GPUs idle %s', (_, at) => {
    // warm-up: idle from the start, but only the first 10m are excused, so look before 10m + 15m.
    const { events } = trace(_ === 'during warm-up' ? 24 : 120, at);
    expect(kinds(events).filter((k) => k === 'idle_gpus')).toEqual([]);
  });

  it('clears when the GPUs are busy again', () => {
    const { events } = trace(120, (m) => deadlock(62)(m < 100 ? m : 62 - 1));
    expect(events.map((e) => [e.minute, kinds([e]), e.cleared.map((c) => c.kind)])).toEqual([
      [80, ['idle_gpus'], []],
      [100, [], ['idle_gpus']],
    ]);
  });
});

describe('health state', () => {
  it('reads a v1.1 node file into an observation', () => {
    const bytes = new TextEncoder().encode(
      JSON.stringify({
        node_rank: 3,
        nodes: 16,
        instance_id: 'i-0abc1234',
        hostname: 'ip-10-0-1-23',
        step: 5200,
        step_time_s: 1.42,
        samples_per_s: 90.1,
        gpus: [
          { index: 0, util: 97 },
          { index: 1, util: null },
          { index: 2 },
          { index: 3, util: 0, idle_s: 420 },
        ],
      }),
    );
    const parsed = parseNodeFile(bytes, 3);
    if (!parsed.ok) throw new Error(parsed.problem);
    expect(nodeObservation(parsed.value, START)).toEqual({
      rank: 3,
      at: START,
      instanceId: 'i-0abc1234',
      hostname: 'ip-10-0-1-23',
      step: 5200,
      stepTimeS: 1.42,
      tokensPerS: undefined,
      samplesPerS: 90.1,
      gpuUtil: [
        { index: 0, util: 97 },
        { index: 3, util: 0, idleS: 420 },
      ],
    });
  });

  it('stays small in the run item at 256 nodes: healthy, and with every node idle', () => {
    const fleet = (util: number) => (m: number) => ({
      nodes: nodes(256, RATE, (r) => ({
        instanceId: `i-0${(r * 7919).toString(16).padStart(16, '0')}`,
        hostname: `ip-10-0-${r >> 8}-${r & 255}`,
        step: m < 30 ? m : 30,
        gpuUtil: Array.from({ length: 8 }, (_, index) => ({ index, util: m < 30 ? 97 : util })),
      })),
    });
    const healthy = JSON.stringify(trace(24 * 60, fleet(97)).state).length;
    const idle = JSON.stringify(trace(60, fleet(0)).state).length;
    expect(healthy).toBeLessThan(1024);
    expect(idle).toBeLessThan(64 * 1024);
    console.info(`health state at 256 nodes: ${healthy} bytes healthy, ${idle} bytes with every node idle`);
  });

  it('is a pure function of its input: the same sweep twice gives the same answer', () => {
    const input = {
      attempt: 1,
      attemptStartedAt: START,
      alive: true,
      phase: 'training',
      nodes: nodes(2, RATE).map((n) => ({ ...n, at: START + 30 * MIN })),
      now: START + 30 * MIN,
      settings: DEFAULT_HEALTH_SETTINGS,
    };
    expect(judgeHealth(input)).toEqual(judgeHealth(input));
  });
});

describe('health state between readings', () => {
  it('is unchanged by a sweep that read nothing new, so a warm sweep writes nothing', () => {
    const { state } = trace(60, () => ({ nodes: nodes(4, RATE) }));
    const again = judgeHealth({
      state,
      attempt: 1,
      attemptStartedAt: START,
      alive: true,
      phase: 'training',
      now: START + 61 * MIN,
      settings: DEFAULT_HEALTH_SETTINGS,
    });
    expect(again.state).toEqual(state);
    expect(again.raised).toEqual([]);
  });
});
