import { int, parseDisk, parseGpu, parseXid } from './fields.js';
import type { Diagnosis, DiskUsage, GpuStatus } from './types.js';

/** Parses the `key=value` output of `lambdas/ssm/diagnose.sh`. Never throws: unknown lines are kept aside. */
export function parseDiagnosis(output: string): Diagnosis {
  const gpus: (GpuStatus & { pci?: string })[] = [];
  const xidLines: string[] = [];
  const disks = new Map<string, DiskUsage>();
  const inodes = new Map<string, number>();
  const pids: number[] = [];
  const missing: string[] = [];
  const logTail: string[] = [];
  const kernelOomKills: string[] = [];
  const unparsed: string[] = [];
  const d: { -readonly [K in keyof Diagnosis]?: Diagnosis[K] } = {};
  let ended = false;
  let gpuProblem: string | undefined;
  let processAlive: boolean | null = null;
  const stacks: { pid: number; lines: string[] }[] = [];

  for (const raw of output.replace(/\r\n?/g, '\n').split('\n')) {
    if (!raw.trim()) continue;
    const eq = raw.indexOf('=');
    if (eq <= 0) {
      if (unparsed.length < 5) unparsed.push(raw.slice(0, 200));
      continue;
    }
    const key = raw.slice(0, eq);
    const value = raw.slice(eq + 1);
    switch (key) {
      case 'host':
        d.host = value;
        break;
      case 'time':
        d.at = int(value) !== undefined ? int(value)! * 1000 : undefined;
        break;
      case 'process.alive':
        processAlive = value === 'true' ? true : value === 'false' ? false : null;
        break;
      case 'process.source':
        if (value === 'pidfile' || value === 'pattern' || value === 'none') d.processSource = value;
        break;
      case 'process.pid': {
        const p = int(value);
        if (p !== undefined) pids.push(p);
        break;
      }
      case 'gpu': {
        const g = parseGpu(value);
        if (g) gpus.push(g);
        break;
      }
      case 'gpu.problem':
        gpuProblem = value;
        break;
      case 'xid':
        xidLines.push(value);
        break;
      case 'kernel.oom':
        kernelOomKills.push(value);
        break;
      case 'disk': {
        const u = parseDisk(value);
        if (u) disks.set(u.path, u);
        break;
      }
      case 'inode': {
        const f = value.split(',');
        const pct = Number((f[f.length - 1] ?? '').replace('%', ''));
        if (f.length >= 5 && Number.isFinite(pct)) inodes.set(f.slice(0, -4).join(','), pct);
        break;
      }
      case 'path.missing':
      case 'log.missing':
        if (!missing.includes(value)) missing.push(value);
        break;
      case 'mem.total_kb':
        d.memTotalKiB = int(value);
        break;
      case 'mem.available_kb':
        d.memAvailableKiB = int(value);
        break;
      case 'oom_kill.since_boot':
        d.oomKillsSinceBoot = int(value);
        break;
      case 'cgroup.version':
        if (value === '1' || value === '2' || value === 'none') d.cgroupVersion = value;
        break;
      case 'cgroup.oom_kill':
        d.cgroupOomKills = int(value);
        break;
      case 'nccl.transport':
        if (value === 'efa' || value === 'ib' || value === 'socket' || value === 'unknown')
          d.ncclTransport = value;
        break;
      case 'efa.devices':
        d.efaDevices = int(value);
        break;
      case 'log':
        logTail.push(value);
        break;
      case 'stack.process':
        stacks.push({ pid: int(value) ?? 0, lines: [] });
        break;
      case 'stack':
        stacks.at(-1)?.lines.push(value);
        break;
      case 'stack.problem':
        d.stackProblem = value;
        break;
      case 'end':
        ended = value === 'ok';
        break;
      default:
        // tw.version, run_id, process.state, log.path, …: informative, nothing to interpret.
        break;
    }
  }
  return {
    ...d,
    processAlive,
    pids,
    gpuProblem,
    gpus: gpus.map(({ pci: _pci, ...g }) => g),
    xids: xidLines.map((l) => parseXid(l, gpus)),
    kernelOomKills,
    disks: [...disks.values()].map((u) =>
      inodes.has(u.path) ? { ...u, inodeUsedPct: inodes.get(u.path)! } : u,
    ),
    missingPaths: missing,
    logTail,
    ...(stacks.length ? { stacks } : {}),
    truncated: !ended,
    unparsed,
  };
}
