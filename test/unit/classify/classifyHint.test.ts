import { describe, expect, it } from 'vitest';
import { errorHints, HINT_CUES, HINT_NOT } from '../../../lambdas/core/classify/hint.js';
import { classifyDetailed, explain } from '../../../lambdas/core/classify/index.js';
import { remediationDetails } from '../../../lambdas/core/remediation/details.js';
import { adversarial, nestedQuantifiers } from '../../support/adversarial.js';

// A failure no signal knows: made-up words, so that no built-in signal can match them.
const UNKNOWN = [
  'step 10 loss 2.1',
  'step 20 loss 2.0',
  '[ERROR] zorp runner: shard 3 did not report back',
  'retrying the zorp',
  'ERROR: zorp budget mismatch, cannot go on',
  'exiting',
].join('\n');

describe('hints where no signal matched', () => {
  it('points at the first and the last line with the strongest cue, and changes no classification', () => {
    const d = classifyDetailed(UNKNOWN);
    expect(d.error_type).toBeNull();
    expect(d.hints).toEqual([
      { line: 3, text: '[ERROR] zorp runner: shard 3 did not report back' },
      { line: 5, text: 'ERROR: zorp budget mismatch, cannot go on' },
    ]);
  });

  it('falls back to words of failure in prose when no line carries a level, and gives one line once', () => {
    expect(errorHints('started\nthe zorp pipeline was aborted\ndone')).toEqual([
      { line: 2, text: 'the zorp pipeline was aborted' },
    ]);
  });

  it('skips stack frames, a traceback header and zero counters, and finds nothing in a clean log', () => {
    const text = [
      'Traceback (most recent call last):',
      '  File "train.py", line 3, in <module>',
      'errors: 0, failures=0',
      'no errors in epoch 3',
      'step 30 loss 1.9',
    ].join('\n');
    expect(errorHints(text)).toEqual([]);
  });

  it('are given where only warnings matched, which explain no failure either', () => {
    const d = classifyDetailed(`NCCL WARN NET/Plugin: could not find libnccl-net.so\n${UNKNOWN}`);
    expect(d.error_type).toBeNull();
    expect(d.matches.map((m) => m.error_type)).toEqual([null]);
    expect(d.hints.map((h) => h.line)).toEqual([4, 6]);
    expect(explain(d)[1]).toBe('first error-like line 4: [ERROR] zorp runner: shard 3 did not report back');
  });

  it('are left out when a signal matched: the winner is the explanation', () => {
    const d = classifyDetailed(`${UNKNOWN}\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB`);
    expect(d.error_type).toBe('oom');
    expect(d.hints).toEqual([]);
  });

  it('are printed by --explain and the alert in the same words', () => {
    const lines = explain(classifyDetailed(UNKNOWN));
    expect(lines).toEqual([
      'error type: unknown (no signal matched)',
      'first error-like line 3: [ERROR] zorp runner: shard 3 did not report back',
      'last error-like line 5: ERROR: zorp budget mismatch, cannot go on',
      'no signal knows these words: read the line; a signal in a custom profile teaches trainwatch',
    ]);
    const alert = remediationDetails(
      classifyDetailed(UNKNOWN),
      { ok: false, finding: 'no diagnosis document is configured' },
      { action: 'alert', mode: 'crash', reason: 'unknown is not listed' },
      [],
    );
    expect(alert.slice(0, lines.length)).toEqual(lines);
    expect(explain(classifyDetailed('started\nthe zorp was aborted'))[1]).toBe(
      'error-like line 2: the zorp was aborted',
    );
  });

  it('have cues safe on 1 MB lines (no nested quantifiers; each runs to the end)', () => {
    for (const re of [...HINT_CUES, HINT_NOT]) {
      expect([re.source, nestedQuantifiers(re.source)]).toEqual([re.source, []]);
      for (const text of adversarial(re.source, 1 << 20)) re.test(text);
    }
    expect(errorHints(`${'error '.repeat(1 << 18)}\nfine`)).toHaveLength(1); // cut at 4,000 characters
  });
});
