import { formatDuration } from '../base/duration.js';
import { fromRanges, showRanges, toRanges } from '../base/format.js';
import type { IdleTrack } from '../model/slices/health.js';
import type { HealthSettings } from './settings.js';
import { labelOf } from './straggler.js';
import type { GpuReading, NodeObservation } from './types.js';

/** The utilisation at or below which writers count a GPU's `idle_s` (protocol v1.1). */
export const WRITER_IDLE_UTIL = 5;

/**
 * Since when the node's idle GPUs have been idle: the writer samples them every time it writes (once a
 * minute), the watchdog reads the file once per telemetry period, so the writer's `idle_s` tells the
 * start up to a period earlier than the file that first shows it. Only when every idle GPU reports it and
 * the writer's threshold is within ours (never overstated); never before `notBefore`.
 */
function idleStart(at: number, idle: readonly GpuReading[], notBefore: number, s: HealthSettings): number {
  const reported = idle.map((g) => g.idleS);
  if (s.idleGpuUtil < WRITER_IDLE_UTIL || reported.some((x) => x === undefined)) return at;
  return Math.max(notBefore, Math.min(at, at - Math.min(...(reported as number[])) * 1000));
}

type Tracks = Readonly<Record<string, IdleTrack>>;

/**
 * Advances the idle tracks by this period's node files. A node is tracked while some of its GPUs stay at
 * or below `idleGpuUtil` (the same GPUs, period after period) or its mean utilisation stays at or below
 * `lowGpuUtil`; from when it was first seen so. Whether steps advanced since then is judged from the
 * node's own `step` (else from progress.json written after the track began), like with like, so a late
 * read of progress never turns a deadlock into "data-bound". Idle time never counts from before
 * `notBefore` (the warm-up's end, the last excluded phase the sweep saw). Pure.
 */
export function judgeIdle(
  tracks: Tracks,
  nodes: readonly NodeObservation[],
  /** The latest progress.json seen (step and LastModified), for nodes that do not report a step. */
  progress: { readonly at: number; readonly step: number } | undefined,
  now: number,
  notBefore: number,
  s: HealthSettings,
): Tracks {
  const next: Record<string, IdleTrack> = { ...tracks };
  for (const n of nodes) {
    if (!n.gpuUtil?.length) continue;
    const idleGpus = n.gpuUtil.filter((g) => g.util <= s.idleGpuUtil);
    const idleNow = idleGpus.map((g) => g.index);
    const util = n.gpuUtil.reduce((t, g) => t + g.util, 0) / n.gpuUtil.length;
    const low = idleNow.length > 0 || util <= s.lowGpuUtil;
    const t = tracks[n.rank];
    if (t && n.at <= t.seen) continue; // the same reading again: no new evidence
    const kept = t ? fromRanges(t.gpus).filter((i) => idleNow.includes(i)) : [];
    const confirmed = t !== undefined && now - t.since >= s.idleGpuAfterMs;
    const stepNow = n.step ?? (t && progress && progress.at >= t.since ? progress.step : undefined);
    if (t && (kept.length > 0 || (t.gpus === '' && util <= (confirmed ? 2 : 1) * s.lowGpuUtil))) {
      const step = t.step ?? stepNow;
      next[n.rank] = {
        ...t,
        gpus: toRanges(kept),
        util: Math.round(util),
        step,
        advanced: t.advanced || (step !== undefined && stepNow !== undefined && stepNow > step),
        label: labelOf(n),
        seen: n.at,
      };
    } else if (low) {
      const first = n.step ?? (progress && progress.at >= n.at ? progress.step : undefined);
      next[n.rank] = {
        since: idleStart(n.at, idleGpus, notBefore, s),
        gpus: toRanges(idleNow),
        util: Math.round(util),
        step: first,
        label: labelOf(n),
        seen: n.at,
      };
    } else delete next[n.rank];
  }
  return next;
}

/** Tracks that lasted `idleGpuAfter`: idle ones (steps stopped) page, low ones while steps advance do not. */
export function confirmedIdle(
  tracks: Tracks | undefined,
  now: number,
  s: HealthSettings,
): { idle: [number, IdleTrack][]; dataBound: [number, IdleTrack][] } {
  const due = Object.entries(tracks ?? {})
    .filter(([, t]) => now - t.since >= s.idleGpuAfterMs)
    .map(([r, t]) => [Number(r), t] as [number, IdleTrack])
    .sort((a, b) => a[1].since - b[1].since || a[0] - b[0]);
  return {
    idle: due.filter(([, t]) => t.gpus !== '' && !t.advanced),
    dataBound: due.filter(([, t]) => t.advanced),
  };
}

const gpuHours = (t: IdleTrack, now: number) => (fromRanges(t.gpus).length * (now - t.since)) / 3_600_000;

function joined(parts: readonly string[], more: number): string {
  return more > 0 ? `${parts.join('; ')}; and ${more} more node${more > 1 ? 's' : ''}` : parts.join('; ');
}

/** "node 3 (…): GPUs 0–7 idle (≤ 5 % utilisation) for 22m: 2.9 GPU-hours wasted". */
export function idleText(idle: readonly [number, IdleTrack][], now: number, s: HealthSettings): string {
  const hours = idle.reduce((t, [, x]) => t + gpuHours(x, now), 0);
  const parts = idle
    .slice(0, 3)
    .map(
      ([, t]) =>
        `${t.label}: GPU${t.gpus.includes('-') || t.gpus.includes(',') ? 's' : ''} ${showRanges(t.gpus)} idle (≤ ${s.idleGpuUtil} % utilisation) for ${formatDuration(now - t.since)}`,
    );
  return `${joined(parts, idle.length - 3)}: ${hours.toFixed(1)} GPU-hours wasted`;
}

/** Status line for low utilisation while steps advance: the input pipeline is likely the bottleneck. */
export function dataBoundText(nodes: readonly [number, IdleTrack][], now: number): string {
  const parts = nodes
    .slice(0, 3)
    .map(
      ([, t]) =>
        `${t.label}: ${t.gpus ? `GPUs ${showRanges(t.gpus)} idle, ` : ''}mean GPU utilisation ${Math.round(t.util)} % for ${formatDuration(now - t.since)}`,
    );
  return `${joined(parts, nodes.length - 3)} while steps still advance: likely data-bound (the input pipeline is slower than the GPUs)`;
}
