import { execFile } from 'node:child_process';

/** The v1.1 nvidia-smi columns, in the order of the node file's GPU fields (the Python client asks these and, where
 * the driver answers, SM clocks, the power limit and throttle reasons too: the CLI writer sends the v1.1 set). */
export const GPU_QUERY =
  'index,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,ecc.errors.uncorrected.volatile.total';
const FIELDS = [
  'index',
  'util',
  'mem_used_mib',
  'mem_total_mib',
  'temp_c',
  'power_w',
  'ecc_uncorrected',
] as const;
const INTEGER = new Set<string>(['index', 'ecc_uncorrected']);
/** What nvidia-smi prints for a reading a GPU does not offer: no reading, and no error either. */
const ABSENT = new Set(['[N/A]', 'N/A', '[Not Supported]', 'Not Supported', '']);

/** GPU readings for the node file, or why there are none; both absent when the node has no nvidia-smi. */
export interface GpuSample {
  readonly gpus?: Record<string, number | string>[];
  readonly problem?: string;
}

function reading(cell: string, integer: boolean): number | undefined {
  if (!/^-?\d+(\.\d+)?$/.test(cell)) return undefined;
  const n = Number(cell);
  if (!Number.isFinite(n) || n < 0) return undefined;
  return integer ? Math.trunc(n) : Math.round(n * 10) / 10;
}

/** `nvidia-smi --query-gpu=GPU_QUERY --format=csv,noheader,nounits` → GPU entries; a bracketed error in a
 * reading (`[GPU requires reset]`) becomes that GPU's `error`. */
export function parseGpuQuery(output: string): Record<string, number | string>[] {
  const gpus: Record<string, number | string>[] = [];
  for (const line of output.split('\n')) {
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length !== FIELDS.length) continue;
    const index = reading(cells[0]!, true);
    if (index === undefined) continue;
    const gpu: Record<string, number | string> = { index };
    FIELDS.slice(1).forEach((name, i) => {
      const cell = cells[i + 1]!;
      const value = reading(cell, INTEGER.has(name));
      if (value !== undefined) gpu[name] = value;
      else if (!ABSENT.has(cell) && cell.startsWith('[') && gpu.error === undefined)
        gpu.error = cell.replace(/^\[|\]$/g, '').slice(0, 200);
    });
    gpus.push(gpu);
  }
  return gpus;
}

/** Runs nvidia-smi (a program and its arguments, never a shell; killed after `timeoutMs`). Never throws. */
export function sampleGpus(program = 'nvidia-smi', timeoutMs = 5_000): Promise<GpuSample> {
  return new Promise((resolve) => {
    execFile(
      program,
      [`--query-gpu=${GPU_QUERY}`, '--format=csv,noheader,nounits'],
      { timeout: timeoutMs, encoding: 'utf8', maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) return resolve({ gpus: parseGpuQuery(stdout) });
        const e = error as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
        if (e.code === 'ENOENT') return resolve({}); // no NVIDIA driver tools on this node: no telemetry
        const first = (stdout || stderr).trim().split('\n')[0] || 'no output';
        const problem = e.killed
          ? `nvidia-smi did not answer within ${timeoutMs / 1000}s`
          : typeof e.code === 'number'
            ? `nvidia-smi exit ${e.code}: ${first}`
            : `nvidia-smi failed: ${e.message}`;
        resolve({ problem: problem.slice(0, 300) });
      },
    );
  });
}
