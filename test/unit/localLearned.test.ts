import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { learnedThresholdsSection } from '../../local/recording.js';

// The local mode's last section (issue 30, item 6): its own story runs on short thresholds set explicitly, so
// the learned ones are shown on a real recording (hang-default) replayed on the defaults in simulated time.
describe('local mode: the learned-thresholds section', () => {
  it('tells the recorded hang by its learned threshold, with the time into the hang and the culprit', async () => {
    const started = performance.now();
    const [heading, recording, how, alert, phases, ...more] = await learnedThresholdsSection();
    expect(performance.now() - started).toBeLessThan(5_000); // well under a second on a laptop
    expect(more).toEqual([]);
    expect(heading).toMatch(/^Learned thresholds \(nothing configured\): a real recording replayed/);
    expect(recording).toContain('test/fixtures/device/cpu-gloo/hang-default: torch 2.15 on CPU');
    expect(how).toMatch(/its \d+ S3 writes, in order, .* a sweep every 60 s; no TRAINWATCH_STALL_AFTER/);
    expect(alert).toMatch(/^ {2}STALLED (2m( \d+s)?|3m) into the hang: step \d+ has not advanced for /);
    expect(alert).toContain('(threshold 2m, learned: this run steps every 0.5s (p99 0.55s))');
    expect(alert).toMatch(/node 0 waits in `all_reduce`.*node 1's data loader is the likely cause$/);
    expect(phases).toMatch(
      /with it at 1, 11, 21, 31, 41, 51 s, the first alert comes 2m 10s to 3m into the hang\)$/,
    );
  });

  it('is printed by the local mode at the end of its story', () => {
    const source = readFileSync(join(import.meta.dirname, '..', '..', 'local', 'localMode.ts'), 'utf8');
    expect(source).toMatch(/await learnedThresholdsSection\(\)/);
  });
});
