// The fields of one diagnose.sh line: nvidia-smi values, GPU rows, kernel Xid lines, df rows.
import type { DiskUsage, GpuStatus, XidEvent } from './types.js';

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

/** A non-negative integer, else undefined. */
export function int(v: string | undefined): number | undefined {
  const n = v === undefined ? Number.NaN : Number(v.trim());
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** `0, NVIDIA H100 80GB HBM3, 97, 70123, 81559, 61, 0, 0, 00000000:53:00.0` → a GpuStatus (+ its PCI id). */
export function parseGpu(value: string): (GpuStatus & { pci?: string }) | undefined {
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

export function parseXid(line: string, gpus: readonly (GpuStatus & { pci?: string })[]): XidEvent {
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
export function parseDisk(value: string): DiskUsage | undefined {
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
