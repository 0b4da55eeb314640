import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../lambdas/core/base/errors.js';
import {
  assertRunId,
  decodeText,
  lastLine,
  MAX_JSON_BYTES,
  MAX_TEXT_BYTES,
  parseComplete,
  parseMetadata,
  parseProgress,
  RunFile,
  runFileOf,
  runIdProblem,
  toEpochMs,
} from '../../../lambdas/core/protocol/index.js';
import { bytes } from '../../support/fakes.js';

describe('parseProgress / parseMetadata', () => {
  it('accepts a minimal progress.json and keeps unknown fields', () => {
    const r = parseProgress(bytes({ step: 0, grad_norm: 1.5, tokens_per_s: 9000 }));
    expect(r).toEqual({ ok: true, value: { step: 0, grad_norm: 1.5, tokens_per_s: 9000 } });
  });

  it('accepts the full metadata.json the Python client writes, keeping unknown fields', () => {
    const body = {
      run_id: 'r1',
      status: 'running',
      phase: 'training',
      last_update: '2025-06-01T12:00:00+00:00',
      instance_id: 'i-1',
      attempt: 2,
      stale_minutes: 2.5,
      tags: { team: 'nlp' },
      hostname: 'gpu-7',
    };
    expect(parseMetadata(bytes(body))).toEqual({ ok: true, value: body });
  });

  it.each([
    ['empty file', new Uint8Array(), /^progress\.json is empty$/],
    ['invalid JSON', bytes('{"step": 1'), /^progress\.json is not valid JSON \(/],
    ['a JSON array', bytes([{ step: 1 }]), /^progress\.json must be a JSON object$/],
    ['a JSON string', bytes('"step"'), /^progress\.json must be a JSON object$/],
    ['JSON null', bytes('null'), /^progress\.json must be a JSON object$/],
    ['a string step', bytes({ step: '12' }), /^progress\.json: step: /],
    ['a negative step', bytes({ step: -1 }), /^progress\.json: step: /],
    ['a fractional step', bytes({ step: 1.5 }), /^progress\.json: step: /],
    ['a missing step', bytes({ loss: 1 }), /^progress\.json: step: /],
    ['an infinite loss', bytes('{"step": 1, "loss": 1e400}'), /^progress\.json: loss: /],
    ['a string total', bytes({ step: 1, total_steps: '10' }), /^progress\.json: total_steps: /],
    ['non-UTF-8 bytes', new Uint8Array([0x7b, 0xff, 0x7d]), /^progress\.json is not valid UTF-8$/],
    [
      'a huge file',
      bytes(`{"step": 1, "pad": "${'x'.repeat(MAX_JSON_BYTES)}"}`),
      new RegExp(`^progress\\.json is \\d+ bytes \\(at most ${MAX_JSON_BYTES}\\)$`),
    ],
  ])('rejects %s with a one-line reason', (_name, body, problem) => {
    const r = parseProgress(body);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problem).toMatch(problem);
      expect(r.problem).not.toContain('\n');
    }
  });

  it.each([
    ['attempt 0', { attempt: 0 }, /attempt/],
    ['a fractional attempt', { attempt: 1.5 }, /attempt/],
    ['zero stale_minutes', { stale_minutes: 0 }, /stale_minutes/],
    ['stale_minutes over a week', { stale_minutes: 7 * 24 * 60 + 1 }, /stale_minutes/],
    ['a numeric phase', { phase: 3 }, /phase/],
    ['tags that are a list', { tags: ['a'] }, /tags/],
    ['a boolean timestamp', { last_update: true }, /last_update/],
  ])('rejects metadata with %s, naming the field', (_name, body, field) => {
    const r = parseMetadata(bytes(body));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatch(field);
  });

  it('accepts a file exactly at the size limit', () => {
    const pad = MAX_JSON_BYTES - bytes({ step: 1, p: '' }).length;
    const body = bytes({ step: 1, p: 'x'.repeat(pad) });
    expect(body.length).toBe(MAX_JSON_BYTES);
    expect(parseProgress(body).ok).toBe(true);
  });
});

describe('toEpochMs', () => {
  const noon = Date.UTC(2025, 5, 1, 12, 0, 0);

  it.each([
    ['ISO with Z', '2025-06-01T12:00:00Z', noon],
    ['ISO with an offset', '2025-06-01T14:00:00+02:00', noon],
    ['ISO with a compact offset', '2025-06-01T07:00:00-0500', noon],
    ['zone-less ISO (UTC)', '2025-06-01T12:00:00', noon],
    ['zone-less ISO with microseconds', '2025-06-01T12:00:00.123456', noon + 123],
    ['zone-less with a space (Python str(datetime))', '2025-06-01 12:00:00', noon],
    ['unix seconds', noon / 1000, noon],
    ['fractional unix seconds (time.time())', noon / 1000 + 0.5, noon + 500],
    ['unix milliseconds', noon, noon],
  ] as const)('reads %s', (_name, value, expected) => {
    expect(toEpochMs(value)).toBe(expected);
  });

  it.each([['not a date'], ['2025-13-01T00:00:00Z'], [''], ['1748779200']])('rejects %j', (value) => {
    expect(toEpochMs(value)).toBeUndefined();
  });

  it('passes undefined through', () => {
    expect(toEpochMs(undefined)).toBeUndefined();
  });
});

describe('text files', () => {
  it('lastLine: the last non-empty line, trimmed, cut at max with an ellipsis', () => {
    expect(lastLine('a\nb  \n\n   \n')).toBe('b');
    expect(lastLine('\n \n')).toBeUndefined();
    expect(lastLine('')).toBeUndefined();
    const cut = lastLine('x'.repeat(400))!;
    expect(cut).toHaveLength(300);
    expect(cut.endsWith('…')).toBe(true);
    expect(lastLine('abcdef', 4)).toBe('abc…');
    expect(lastLine('abcd', 4)).toBe('abcd');
  });

  it('decodeText: bad bytes become U+FFFD, CRLF becomes LF, and only the tail is kept', () => {
    expect(decodeText(new Uint8Array([0x61, 0xc3, 0x0d, 0x0a, 0x62]))).toBe('a\uFFFD\nb');
    const big = bytes(`${'a'.repeat(MAX_TEXT_BYTES)}END`);
    const text = decodeText(big);
    expect(text).toHaveLength(MAX_TEXT_BYTES);
    expect(text.endsWith('END')).toBe(true);
  });

  it('parseComplete: a JSON object summary, else undefined', () => {
    expect(parseComplete(bytes({ step: 10, final_loss: 0.2 }))).toEqual({ step: 10, final_loss: 0.2 });
    expect(parseComplete(bytes('  {"ok": true}\n'))).toEqual({ ok: true });
    expect(parseComplete(bytes('done'))).toBeUndefined();
    expect(parseComplete(bytes('{broken'))).toBeUndefined();
    expect(parseComplete(bytes('[1]'))).toBeUndefined();
    expect(parseComplete(new Uint8Array())).toBeUndefined();
  });
});

describe('run ids', () => {
  it.each([['r1'], ['llama-7b_ft.2025-06-01'], ['A'], ['a'.repeat(128)], ['9abc'], ['a.b']])(
    'accepts %j',
    (id) => {
      expect(runIdProblem(id)).toBeUndefined();
      expect(assertRunId(id)).toBe(id);
    },
  );

  it.each([
    ['', /empty/],
    ['a'.repeat(129), /129 characters long \(at most 128\)/],
    ['..', /may hold only/],
    ['.', /may hold only/],
    ['a..b', /must not contain '\.\.'/],
    ['a/b', /may hold only/],
    ['.hidden', /must start with a letter or digit/],
    ['-x', /must start with a letter or digit/],
    ['run é', /may hold only/],
    ['ラン', /may hold only/],
    ['%2e%2e', /may hold only/],
    ['a b', /may hold only/],
    ['a\nb', /may hold only/],
  ])('rejects %j', (id, problem) => {
    expect(runIdProblem(id)).toMatch(problem);
    expect(() => assertRunId(id)).toThrow(ProtocolError);
  });

  it('runFileOf maps exact protocol paths only', () => {
    expect(runFileOf('metadata.json')).toBe('metadata');
    expect(runFileOf(RunFile.log)).toBe('log');
    expect(runFileOf('logs/other.txt')).toBeUndefined();
    expect(runFileOf('attempts/1/_error')).toBeUndefined();
    expect(runFileOf('Metadata.json')).toBeUndefined();
  });
});
