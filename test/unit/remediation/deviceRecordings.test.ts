import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GPU_QUERY, parseGpuQuery } from '../../../bin/commands/gpuTelemetry.js';
import { parseNodeFile } from '../../../lambdas/core/protocol/node.js';
import { parseDiagnosis, summarize } from '../../../lambdas/core/remediation/diagnosis/index.js';

// Recorded on a real H100 (driver 580.159.04) by scripts/device-check.sh: nvidia-smi's answers to trainwatch's
// queries, the Python client's node files through NVML and through nvidia-smi, and diagnose.sh, with the GPU idle
// and then busy under a torch matmul loop. The stubs in test/fixtures/bin stand in for nvidia-smi everywhere else;
// these recordings keep them, and the parsers, honest.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const H100 = join(ROOT, 'test/fixtures/device/h100');
const read = (name: string) => readFileSync(join(H100, name), 'utf8');
const source = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DIAGNOSE_QUERY = /--query-gpu=(\S+)/.exec(source('lambdas/ssm/diagnose.sh'))![1]!;

describe('recordings from a real H100', () => {
  it('were taken with the queries trainwatch sends today', () => {
    const script = source('scripts/device-check.sh');
    expect(script).toContain(`NODE_QUERY=${GPU_QUERY}`);
    expect(DIAGNOSE_QUERY.split(',')).toHaveLength(9);
  });

  it.each(['idle', 'busy'])('the CLI parses the real nvidia-smi answer (%s)', (load) => {
    const gpus = parseGpuQuery(read(`nvidia-smi-node-${load}.csv`));
    expect(gpus).toHaveLength(1);
    const g = gpus[0]!;
    expect(Object.keys(g).sort()).toEqual(
      ['ecc_uncorrected', 'index', 'mem_total_mib', 'mem_used_mib', 'power_w', 'temp_c', 'util'].sort(),
    );
    expect(g.mem_total_mib).toBe(81559);
    if (load === 'busy') expect(g.util).toBeGreaterThanOrEqual(90);
    else expect(g.util).toBe(0);
  });

  it.each(['idle', 'busy'])(
    'the Python node files pass the Lambda schema, and NVML agrees with nvidia-smi (%s)',
    (load) => {
      const [nvml, smi] = ['nvml', 'nvidia-smi'].map((source) => {
        const parsed = parseNodeFile(Buffer.from(read(`node-${source}-${load}.json`)), 0);
        if (!parsed.ok) throw new Error(parsed.problem);
        expect(parsed.problems).toEqual([]);
        return parsed.value.gpus![0]!;
      });
      // Memory used: NVML's v2 struct, like nvidia-smi, leaves out the driver's reservation (480 MiB here).
      expect(Math.abs(Number(nvml!.mem_used_mib) - Number(smi!.mem_used_mib))).toBeLessThanOrEqual(16);
      expect(nvml!.mem_total_mib).toBe(smi!.mem_total_mib);
      for (const g of [nvml!, smi!]) {
        if (load === 'busy') {
          expect(g.util).toBeGreaterThanOrEqual(90);
          expect(g.idle_s).toBeUndefined();
        } else {
          expect(g.util).toBe(0);
          expect(g.idle_s).toBeGreaterThan(0);
        }
      }
    },
  );

  it('diagnose.sh on the real machine parses into a live process on a busy GPU, then a dead run', () => {
    const busy = parseDiagnosis(read('diagnose-busy.txt'));
    expect(busy.truncated).toBe(false);
    expect(busy.unparsed).toEqual([]);
    expect(busy.processAlive).toBe(true);
    expect(busy.gpus).toHaveLength(1);
    expect(busy.gpus[0]).toMatchObject({ index: 0, name: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81559 });
    expect(busy.gpus[0]!.utilizationPct).toBeGreaterThanOrEqual(90);
    expect(busy.gpus[0]!.eccUncorrectedVolatile).toBe(0);
    expect(busy.cgroupVersion).toBe('2');
    expect(busy.logTail).toEqual(['step 2400 loss 1.93']);
    const idle = summarize(parseDiagnosis(read('diagnose-idle.txt')));
    expect(idle.processAlive).toBe(false);
    expect(idle.gpuFailure).toBeUndefined();
    expect(idle.diskFull).toBeUndefined();
    expect(idle.lines.join('\n')).toMatch(/GPU.*idle/);
  });

  it.each(readdirSync(join(ROOT, 'test/fixtures/bin')).filter((s) => !['nodriver', 'nodevices'].includes(s)))(
    'the %s stub answers diagnose.sh’s query in the real format',
    (scenario) => {
      const stub = join(ROOT, 'test/fixtures/bin', scenario, 'nvidia-smi');
      const out = execFileSync(stub, [`--query-gpu=${DIAGNOSE_QUERY}`, '--format=csv,noheader,nounits'], {
        encoding: 'utf8',
      });
      // A reading is a number, or what nvidia-smi prints instead ([N/A], [Unknown Error], ERR!); the name is text.
      const cell = (c: string) =>
        /^\d+(\.\d+)?$|^\[[^\]]+\]$|^ERR!$/.test(c)
          ? 'reading'
          : /^[\dA-F]{8}:[\dA-F]{2}:[\dA-F]{2}\.\d$/i.test(c)
            ? 'pci'
            : 'text';
      const shape = (line: string) => line.split(', ').map(cell);
      const real = shape(read('nvidia-smi-diagnose-busy.csv').trim());
      for (const line of out.trim().split('\n')) expect([scenario, shape(line)]).toEqual([scenario, real]);
    },
  );
});
