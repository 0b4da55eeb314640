import { describe, expect, it } from 'vitest';
import { healthSim, healthSimLine } from '../../../bench/healthSim.js';

// The bench runs 200 runs × 24 h; here a small fleet keeps the same rules honest in seconds.
describe('health simulation (small scale)', () => {
  const r = healthSim(12, 6, 6);

  it('raises nothing on noisy healthy runs (jitter, evaluations, checkpoints, warm-up, slow steps)', () => {
    expect(r.examples).toEqual([]);
    expect(r.falseAlarms).toBe(0);
    expect(r.runHours).toBe(72);
  });

  it('reports every injected fault, drops and idle GPUs close to their bounds', () => {
    for (const l of Object.values(r.latency)) expect(l.missed).toBe(0);
    // A node file is written every 60 s and measures its last minute: up to 1 min beyond the sweep's bound.
    expect(r.latency.drop.max).toBeLessThanOrEqual(r.latency.drop.bound + 1);
    // The writer's idle_s says when the GPUs went idle; without it, idle counts from the first file read.
    expect(r.latency.idle.max).toBeLessThanOrEqual(r.latency.idle.bound);
    expect(r.idleWithoutIdleS.max).toBeLessThanOrEqual(r.idleWithoutIdleS.bound + 1);
    expect(r.idleWithoutIdleS.missed).toBe(0);
    expect(r.latency.drop.median).toBeLessThanOrEqual(r.latency.drop.bound);
    expect(r.latency.idle.median).toBeLessThanOrEqual(r.latency.idle.bound);
    expect(healthSimLine(r)).toMatch(/^health: false alarms 0 over 72 run-hours/);
  });
});
