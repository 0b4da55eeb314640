import { describe, expect, it } from 'vitest';
import { CULPRITS, HEALTHY } from '../../../bench/stackModel.js';
import { SCENARIOS, stackSim, stateAt, trialOf, verdictOf } from '../../../bench/stackSim.js';

// The bench runs seeds 1–500 (tuning) and 4501–6500 (held out) of every scenario; here 60 held-out seeds
// (10 per fleet size) of the issue's scenarios keep its targets honest in seconds. The range was fixed
// before any of its results was seen; the targets are the issue's. (Seeds 501–2500 and 2501–4500 were earlier
// held-out sets, seen before later changes: bench/stackSim.ts.)
const main = SCENARIOS.filter((s) => !s.extra);
const report = stackSim(4501, 4560, main);
const row = (name: string) => report.rows.find((r) => r.scenario.name === name)!;
const detail = (name: string) =>
  `${name}: ${JSON.stringify(row(name).bySize)}; failures: ${report.failures
    .filter((f) => f.key.startsWith(`collective ${name}:`))
    .map((f) => `${f.count} × ${f.key} (${f.example})`)
    .join(' | ')}`;

describe('stack simulation: hung multi-node runs, the odd node out named by its stack (issue 25, item 6)', () => {
  it('is the run it claims: STALLED first at the sweep that reads its stacks, every stack file valid', () => {
    for (const s of main)
      for (let seed = 4501; seed <= 4506; seed++) {
        const t = trialOf(s, seed);
        // A minute earlier it was RUNNING, or WARNING for a node gone silent (frozen).
        expect([s.name, seed, stateAt(t, t.now - 60_000) === 'STALLED', stateAt(t, t.now)]).toEqual([
          s.name,
          seed,
          false,
          'STALLED',
        ]);
        const waits = Object.values(verdictOf(t)?.waits ?? {});
        expect(waits.filter((w) => typeof w === 'string')).toEqual([]);
      }
  });

  it.each(CULPRITS)('names the node stuck (%s) alone in >= 95 % of runs of 2–64 nodes', (name) => {
    const r = row(name);
    expect(r.all.trials).toBe(60);
    expect(r.all.right, detail(name)).toBeGreaterThanOrEqual(0.95 * r.all.trials);
  });

  it('never names a node that is not the culprit', () => {
    const wrong = CULPRITS.map((name) => [name, row(name).all.wrong] as const).filter(([, n]) => n > 0);
    expect(wrong, wrong.map(([name]) => detail(name)).join('\n')).toEqual([]);
  });

  it.each(HEALTHY)('names no node in a healthy stalled run (%s)', (name) => {
    const r = row(`healthy ${name}`);
    expect(r.all.trials).toBe(60);
    expect(r.all.wrong, detail(`healthy ${name}`)).toBe(0);
  });
});
