import type { Diagnosis, DiskUsage, GpuStatus, XidEvent } from './types.js';

/** nvidia-smi writes `[N/A]`, `[Not Supported]` or `N/A` where a value does not apply. */
const NOT_APPLICABLE = /^\[?(N\/A|Not Supported)\]?$/i;
/** …and these where the GPU itself is failing. */
const GPU_ERROR = /ERR!|Unknown Error|GPU requires reset|GPU is lost|Unable to determine/i;

function num(v: string | undefined): number | null {
  if (v === undefined) return null;
  const t = v.trim();
  if (!t || NOT_APPLICABLE.test(t) || GPU_ERROR.test(t)) return null;
  const n = Number(t.replace(/\s*(%|MiB|C)$/i, ''));
  return Number.isFinite(n) ? n : null;
}

function int(v: string | undefined): number | undefined {
  const n = v === undefined ? Number.NaN : Number(v.trim());
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** `0, NVIDIA H100 80GB HBM3, 97, 70123, 81559, 61, 0, 0, 00000000:53:00.0` → a GpuStatus (+ its PCI id). */
function parseGpu(value: string): (GpuStatus & { pci?: string }) | undefined {
  const f = value.split(',').map((s) => s.trim());
  const index = int(f[0]);
  if (index === undefined) return undefined;
  const bad = f.find((x) => GPU_ERROR.test(x));
  return {
    index,
    name: f[1] ?? '',
    utilizationPct: num(f[2]),
    memoryUsedMiB: num(f[3]),
    memoryTotalMiB: num(f[4]),
    temperatureC: num(f[5]),
    eccUncorrectedVolatile: num(f[6]),
    eccUncorrectedAggregate: num(f[7]),
    ...(bad ? { error: bad.replace(/^\[|\]$/g, '') } : {}),
    ...(f[8] && !GPU_ERROR.test(f[8]) ? { pci: f[8] } : {}),
  };
}

/** Kernel and nvidia-smi spell PCI addresses differently (`0000:53:00` vs `00000000:53:00.0`): compare bus and device. */
function pciKey(pci: string): string | undefined {
  const m = /([0-9a-f]{2}):([0-9a-f]{2})(?:\.[0-7])?$/i.exec(pci.replace(/^PCI:/i, ''));
  return m ? `${m[1]!.toLowerCase()}:${m[2]!.toLowerCase()}` : undefined;
}

function parseXid(line: string, gpus: readonly (GpuStatus & { pci?: string })[]): XidEvent {
  const m = /Xid \((?:PCI:)?([0-9A-Fa-f:.]+)\): (\d+)/.exec(line);
  // "NVRM: GPU 0000:86:00.0: GPU has fallen off the bus." names the GPU without an Xid field.
  const pci =
    m?.[1] ?? /GPU (?:at PCI:)?([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.\d)?)/.exec(line)?.[1];
  const key = pci ? pciKey(pci) : undefined;
  const gpu = key ? gpus.find((g) => g.pci && pciKey(g.pci) === key)?.index : undefined;
  // "fallen off the bus" without an Xid number is the same event as Xid 79.
  const xid = m ? Number(m[2]) : 79;
  return { xid, line, ...(pci ? { pci } : {}), ...(gpu !== undefined ? { gpu } : {}) };
}

/** `path,size,used,avail,use%,mount` → usage (df -P -k). */
function parseDisk(value: string): DiskUsage | undefined {
  const f = value.split(',');
  if (f.length < 6) return undefined;
  const mount = f.pop()!;
  const pct = f.pop()!;
  const avail = f.pop()!;
  f.splice(-2); // size, used
  const usedPct = Number(pct.replace('%', ''));
  if (!Number.isFinite(usedPct)) return undefined;
  return { path: f.join(','), mount, usedPct, availKiB: int(avail) };
}

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
    truncated: !ended,
    unparsed,
  };
}
