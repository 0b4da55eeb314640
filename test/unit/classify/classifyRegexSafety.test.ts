import { describe, expect, it } from 'vitest';
import { BUILTIN_PROFILES, classifyDetailed, type Signal } from '../../../lambdas/core/classify/index.js';
import { adversarial, nestedQuantifiers } from '../../support/adversarial.js';

// No timed assertions (house rule): a regex with catastrophic backtracking does not finish on 1 MB at all,
// so completion within the test timeout is the assertion, and the star-height check says why it holds.
const MB = 1 << 20;
const signals: readonly Signal[] = BUILTIN_PROFILES.get('production')!.signals;
const regexes = signals.flatMap((s) =>
  (['pattern', 'requires', 'unless', 'excludes'] as const)
    .filter((k) => s[k] !== undefined)
    .map((k) => ({ name: `${s.name}.${k}`, source: s[k]!, flags: s.flags })),
);

describe('built-in signals on hostile input', () => {
  it('have no nested quantifiers, the cause of exponential backtracking, except unambiguous ones', () => {
    // Each repetition must end in a literal "." that \w* cannot match: one way to split any input, linear.
    const unambiguous: Record<string, string> = { 'python_exception.pattern': '(?:[A-Za-z_]\\w*\\.)*' };
    const nested = regexes.flatMap((r) =>
      nestedQuantifiers(r.source)
        .filter((q) => unambiguous[r.name] !== q)
        .map((q) => `${r.name}: ${q}`),
    );
    expect(nested).toEqual([]);
    expect(nestedQuantifiers('(?:\\s*x)*')).toEqual(['(?:\\s*x)*']); // the check itself can fail
  });

  it('bound every "anything" run between two parts of a pattern (X.*Y is quadratic on X X X …)', () => {
    const unbounded = regexes.filter((r) => /(?<!\\)\.[*+]/.test(r.source)).map((r) => r.name);
    expect(unbounded).toEqual([]);
  });

  it('the adversarial inputs are what makes an unsafe pattern slow (the phrases of the pattern, repeated)', () => {
    const inputs = adversarial(String.raw`NCCL.*timed out after`, 64);
    expect(inputs).toContain('NCCL '.repeat(13));
    expect(inputs.every((t) => t.length >= 64)).toBe(true);
  });

  it.each(regexes.map((r) => [r.name, r] as const))(
    '%s runs to the end of 1 MB adversarial lines',
    (_, r) => {
      const re = new RegExp(r.source, r.flags);
      let ran = 0;
      for (const text of adversarial(r.source, MB)) {
        expect(text.length).toBeGreaterThanOrEqual(MB);
        re.test(text);
        ran++;
      }
      expect(ran).toBeGreaterThanOrEqual(8);
    },
  );

  it('classifies a text of 1 MB lines, a huge line with no newline and a binary blob', () => {
    const line = `${'x'.repeat(MB)} CUDA out of memory.`;
    expect(classifyDetailed(`${line}\n${line}`).error_type).toBeNull(); // beyond the 4,000-character cut
    expect(classifyDetailed(`${'[rank0]: '.repeat(MB / 9)}\nRuntimeError: boom`).error_type).toBe(
      'exception',
    );
    const blob = Buffer.from(Array.from({ length: MB }, (_, i) => (i * 7919) % 256)).toString('latin1');
    expect(classifyDetailed(blob).error_type).toBeNull();
  });
});
