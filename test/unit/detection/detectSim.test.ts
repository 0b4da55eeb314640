import { describe, expect, it } from 'vitest';
import { simulate } from '../../../bench/detectModel.js';
import { detectSim, faultShape, healthyShape, targets } from '../../../bench/detectSim.js';
import { parseNodeFile } from '../../../lambdas/core/protocol/node.js';
import { parseStackFile } from '../../../lambdas/core/protocol/stacks.js';

// The bench runs seeds 1–150 (tuning) and 11001–11650 (held out); here the first 30 held-out seeds (240
// healthy run-hours, 30 fault runs) keep issue 30's targets honest in seconds. The slice was fixed before
// any of its results was seen. Seeds 1–650 were tuning seeds; earlier held-out ranges were retired once
// their figures had been seen while the rules still changed (5001–5030 in aggregate, 7001–7650 and
// 9001–9650 whole): docs/DETECTION.md says what each showed.
const FROM = 11001;
const TO = 11030;
const decoder = new TextDecoder();

describe('detection bench: stuck runs told on the defaults (issue 30, item 3)', () => {
  it('writes what the protocol says: every node and stack file the client would write parses', () => {
    for (const seed of [FROM, FROM + 1, FROM + 2, FROM + 3, FROM + 4]) {
      for (const shape of [healthyShape(seed), faultShape(seed)]) {
        const sim = simulate(shape);
        for (const [key, writes] of sim.keys) {
          const m = /^(nodes|stacks)\/(\d+)\.json$/.exec(key);
          if (!m) continue;
          for (const w of writes.slice(0, 50)) {
            if (!w.body) continue;
            const bytes = new TextEncoder().encode(w.body());
            const ok =
              m[1] === 'nodes'
                ? parseNodeFile(bytes, Number(m[2])).ok
                : parseStackFile(bytes, Number(m[2])).ok;
            expect([seed, key, ok, ok ? '' : decoder.decode(bytes).slice(0, 200)]).toEqual([
              seed,
              key,
              true,
              '',
            ]);
          }
        }
      }
    }
  });

  it('meets the targets on a held-out slice', { timeout: 60_000 }, async () => {
    const r = await detectSim('held-out slice', FROM, TO);
    expect(r.runHours).toBeGreaterThanOrEqual(240);
    const failed = targets(r).checks.filter(([, ok]) => !ok);
    expect(failed.map(([text]) => text)).toEqual([]);
  });
});
