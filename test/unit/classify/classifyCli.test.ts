import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run } from '../../../bin/commands/classify.js';

const dir = mkdtempSync(join(tmpdir(), 'tw-classify-'));
afterEach(() => vi.restoreAllMocks());

async function cli(args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const code = await run(args);
  return { code, json: JSON.parse(out) };
}

describe('trainwatch classify', () => {
  it('prints exactly {error_type, restartable, signal, severity, fields} for a log file', async () => {
    const f = join(dir, 'oom.log');
    writeFileSync(
      f,
      'step 10\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 2 has a total capacity of 79.15 GiB of which 3.00 MiB is free.\n',
    );
    const { code, json } = await cli([f]);
    expect(code).toBe(0);
    expect(Object.keys(json)).toEqual(['error_type', 'restartable', 'signal', 'severity', 'fields']);
    expect(json).toEqual({
      error_type: 'oom',
      restartable: false,
      signal: 'cuda_oom',
      severity: 'critical',
      fields: { alloc_size: '1.50 GiB', gpu: '2', gpu_total: '79.15 GiB' },
    });
  });

  it('prints error_type null when nothing matched, and lists matches with --all', async () => {
    const f = join(dir, 'ok.log');
    writeFileSync(f, 'step 10 | loss 2.1 | error_rate 0.0\n');
    expect((await cli([f])).json).toMatchObject({
      error_type: null,
      signal: null,
      severity: null,
      restartable: false,
    });
    const nccl = join(dir, 'nccl.log');
    writeFileSync(
      nccl,
      'x:1:1 [0] NCCL WARN Net : Connection closed by remote peer\nRuntimeError: NCCL error in: a.cpp:1, unhandled system error\n',
    );
    const { json } = await cli([nccl, '--all', '--profile', 'nccl']);
    expect(json.error_type).toBe('communication');
    expect((json.matches as { signal: string }[]).map((m) => m.signal)).toEqual([
      'connection_lost',
      'nccl_error',
      'python_exception',
      'nccl_warn',
    ]);
  });

  it('accepts a YAML profile file', async () => {
    const p = join(dir, 'p.yaml');
    writeFileSync(
      p,
      "name: mine\nsignals:\n  - name: shard\n    pattern: 'bad shard (?<shard>\\d+)'\n    error_type: exception\n    severity: error\n    subsystem: data\n    priority: 5\n",
    );
    const f = join(dir, 'shard.log');
    writeFileSync(f, 'bad shard 17\n');
    expect((await cli([f, '--profile', p])).json).toMatchObject({
      error_type: 'exception',
      signal: 'shard',
      fields: { shard: '17' },
    });
  });
});
