import { describeWait } from '../../stacks/describe.js';
import { stackFromPySpy } from '../../stacks/pyspy.js';
import { trainingWait } from '../../stacks/verdict.js';
import type { Diagnosis } from './types.js';

/** What an Xid means and whether the node can still run the job (NVIDIA's Xid catalogue, abridged). */
const XID: Readonly<Record<number, { meaning: string; fatal: boolean }>> = {
  8: { meaning: 'GPU stopped processing', fatal: false },
  13: { meaning: 'graphics engine exception (usually the application)', fatal: false },
  31: { meaning: 'GPU memory page fault (usually the application)', fatal: false },
  43: { meaning: 'GPU stopped processing (usually the application)', fatal: false },
  45: { meaning: 'preemptive cleanup after a killed process', fatal: false },
  48: { meaning: 'double-bit ECC error — replace the node', fatal: true },
  61: { meaning: 'internal micro-controller breakpoint — reset the GPU or replace the node', fatal: true },
  62: { meaning: 'internal micro-controller halt — reset the GPU or replace the node', fatal: true },
  63: { meaning: 'ECC page retirement or row remapping recorded — reset the GPU', fatal: false },
  64: { meaning: 'ECC page retirement or row remapping failed — replace the node', fatal: true },
  74: { meaning: 'NVLink error — replace the node', fatal: true },
  79: { meaning: 'fallen off the bus — replace the node', fatal: true },
  92: { meaning: 'high single-bit ECC error rate — replace the node soon', fatal: false },
  94: { meaning: 'contained ECC error — restart the application', fatal: false },
  95: { meaning: 'uncontained ECC error — reset the GPU or replace the node', fatal: true },
  119: { meaning: 'GSP RPC timeout — reset the GPU or reboot', fatal: true },
  120: { meaning: 'GSP error — reset the GPU or reboot', fatal: true },
};

/** Full at or above this share of blocks or inodes: a restart would fail writing its first checkpoint. */
export const DISK_FULL_PCT = 98;
const DISK_WARN_PCT = 90;

/** The diagnosis in a few lines for people, plus the verdicts the restart gate needs. */
export interface DiagnosisSummary {
  /** Most important first, e.g. "GPU 3: Xid 79, fallen off the bus — replace the node". */
  readonly lines: readonly string[];
  readonly processAlive: boolean | null;
  /** Why this node cannot run the job now (a dead GPU, a driver that does not answer). */
  readonly gpuFailure?: string;
  /** Why a restart would fail on disk (a checkpoint or log filesystem full of blocks or inodes). */
  readonly diskFull?: string;
  readonly truncated: boolean;
}

function gpuLabel(gpu: number | undefined, pci: string | undefined): string {
  return gpu !== undefined ? `GPU ${gpu}` : pci ? `GPU at ${pci}` : 'GPU';
}

/** Summarises a parsed diagnosis. Pure. */
export function summarize(d: Diagnosis): DiagnosisSummary {
  const critical: string[] = [];
  const info: string[] = [];
  let gpuFailure: string | undefined;
  let diskFull: string | undefined;

  const seen = new Set<string>();
  for (const x of d.xids) {
    const label = gpuLabel(x.gpu, x.pci);
    const key = `${label}:${x.xid}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const known = XID[x.xid];
    const line = `${label}: Xid ${x.xid}, ${known?.meaning ?? 'see NVIDIA Xid catalogue'}`;
    if (known?.fatal) {
      critical.push(line);
      gpuFailure ??= line;
    } else info.push(line);
  }
  for (const g of d.gpus) {
    if (g.error) {
      const line = `GPU ${g.index}: nvidia-smi reports "${g.error}" — reset the GPU or replace the node`;
      critical.push(line);
      gpuFailure ??= line;
    } else if ((g.eccUncorrectedVolatile ?? 0) > 0) {
      const line = `GPU ${g.index}: ${g.eccUncorrectedVolatile} uncorrectable ECC errors since the last reset — reset the GPU or replace the node`;
      critical.push(line);
      gpuFailure ??= line;
    }
  }
  if (d.gpuProblem) {
    if (
      /couldn't communicate with the NVIDIA driver|driver|GPU is lost|Unable to determine/i.test(d.gpuProblem)
    ) {
      const line = `GPU driver not responding (${d.gpuProblem}) — reboot or replace the node`;
      critical.push(line);
      gpuFailure ??= line;
    } else info.push(`no GPU data: ${d.gpuProblem}`);
  } else if (d.gpus.length > 0 && !d.gpus.some((g) => g.error)) {
    const utils = d.gpus.map((g) => g.utilizationPct).filter((u): u is number => u !== null);
    const mem = d.gpus.map((g) => g.memoryUsedMiB ?? 0).reduce((a, b) => a + b, 0);
    if (utils.length && utils.every((u) => u < 5))
      info.push(
        `${d.gpus.length} GPUs idle (${Math.max(...utils)}% utilisation at most, ${Math.round(mem / 1024)} GiB memory in use)`,
      );
    else if (utils.length)
      info.push(`${d.gpus.length} GPUs busy (${Math.min(...utils)}–${Math.max(...utils)}% utilisation)`);
  }

  for (const u of d.disks) {
    const where = u.path === u.mount || !u.mount ? u.path : `${u.path} (${u.mount})`;
    if (u.usedPct >= DISK_FULL_PCT) {
      const line = `disk ${where} ${u.usedPct}% full — free space before restarting`;
      critical.push(line);
      diskFull ??= line;
    } else if ((u.inodeUsedPct ?? 0) >= DISK_FULL_PCT) {
      const line = `disk ${where} out of inodes (${u.inodeUsedPct}% used) — delete small files before restarting`;
      critical.push(line);
      diskFull ??= line;
    } else if (u.usedPct >= DISK_WARN_PCT && u.path !== '/') info.push(`disk ${where} ${u.usedPct}% full`);
  }
  for (const p of d.missingPaths) info.push(`path missing on the instance: ${p}`);

  if (d.processAlive === true) info.unshift(`process running (PID ${d.pids.join(', ') || '?'})`);
  else if (d.processAlive === false) info.unshift('process not running');
  else info.unshift('process state unknown (no PID file or process pattern to check)');

  if (d.kernelOomKills.length)
    critical.push(
      `host OOM killer fired: ${d.kernelOomKills[d.kernelOomKills.length - 1]!.replace(/^\[[^\]]*\]\s*/, '').slice(0, 160)}`,
    );
  else if ((d.cgroupOomKills ?? 0) > 0)
    critical.push(`cgroup memory limit hit (${d.cgroupOomKills} OOM kills)`);
  if (d.memTotalKiB && d.memAvailableKiB !== undefined && d.memAvailableKiB < d.memTotalKiB * 0.05)
    info.push(`host memory nearly exhausted (${Math.round(d.memAvailableKiB / 1024)} MiB available)`);

  if (d.ncclTransport === 'socket' && (d.efaDevices ?? 0) > 0)
    critical.push(
      `NCCL over NET/Socket, EFA expected (${d.efaDevices} EFA devices present) — check the aws-ofi-nccl plugin`,
    );
  else if (d.ncclTransport === 'efa') info.push('NCCL over EFA (OFI plugin)');

  // Where the training process waits, from py-spy: the hang's evidence where the client wrote no stacks.
  const stack = d.stacks && stackFromPySpy(0, d.stacks);
  const wait = stack && trainingWait(stack);
  if (wait) info.push(`training process (py-spy): main thread in ${describeWait(wait)}`);
  else if (d.stackProblem && d.processAlive) info.push(`no Python stack: ${d.stackProblem}`);

  if (d.truncated)
    info.push('diagnosis output incomplete (cut at the SSM output limit, or the script was killed)');
  return {
    lines: [...critical, ...info],
    processAlive: d.processAlive,
    gpuFailure,
    diskFull,
    truncated: d.truncated,
  };
}
