import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GPU_QUERY, parseGpuQuery } from '../../../bin/commands/gpuTelemetry.js';
import { topology } from '../../../bin/commands/nodeTopology.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures');

interface LauncherCase {
  launcher: string;
  env: Record<string, string>;
  node_rank: number | null;
  nodes: number | null;
  local_rank: number | null;
}

// The Python client's tests read the same table: both writers place a process the same way.
const LAUNCHERS: LauncherCase[] = JSON.parse(readFileSync(join(FIXTURES, 'launchers.json'), 'utf8'));

describe('node rank and count from the launcher environment', () => {
  it.each(LAUNCHERS.map((c) => [c.launcher, c] as const))('%s', (_name, c) => {
    const t = topology(c.env);
    expect({
      node_rank: t.nodeRank ?? null,
      nodes: t.nodes ?? null,
      local_rank: t.localRank ?? null,
    }).toEqual({
      node_rank: c.node_rank,
      nodes: c.nodes,
      local_rank: c.local_rank,
    });
  });

  it('covers torchrun, SLURM, Ray and EKS', () => {
    const names = LAUNCHERS.map((c) => c.launcher).join('\n');
    for (const launcher of ['torchrun', 'srun', 'Ray', 'EKS']) expect(names).toContain(launcher);
  });
});

describe('parseGpuQuery', () => {
  it('asks nvidia-smi the v1.1 columns the Python client asks first (the client adds clocks and throttle reasons)', () => {
    const python = readFileSync(join(FIXTURES, '..', '..', 'clients/python/src/trainwatch/_gpus.py'), 'utf8');
    const base = /BASE_QUERY = \(\s*"([^"]+)"\s*\)/.exec(python)?.[1];
    expect(base).toBe(GPU_QUERY);
  });

  it.each([
    [
      'a healthy GPU',
      '0, 97, 71000, 81559, 61, 652.31, 0',
      [
        {
          index: 0,
          util: 97,
          mem_used_mib: 71000,
          mem_total_mib: 81559,
          temp_c: 61,
          power_w: 652.3,
          ecc_uncorrected: 0,
        },
      ],
    ],
    [
      'readings the GPU does not offer',
      '0, 93, 20110, 23028, 58, [Not Supported], [N/A]',
      [{ index: 0, util: 93, mem_used_mib: 20110, mem_total_mib: 23028, temp_c: 58 }],
    ],
    [
      'a GPU that fell off the bus',
      '3, [GPU requires reset], [GPU requires reset], [GPU requires reset], [GPU requires reset], [GPU requires reset], [GPU requires reset]',
      [{ index: 3, error: 'GPU requires reset' }],
    ],
    ['lines that are not GPUs', 'No devices were found\n\n1, 2, 3\n', []],
  ])('%s', (_name, output, gpus) => {
    expect(parseGpuQuery(output)).toEqual(gpus);
  });
});
