import { formatDuration } from '../base/duration.js';
import { formatSeconds, median } from '../base/format.js';
import type { StragglerTrack } from '../model/slices/health.js';
import { nodeLabel } from '../model/slices/nodes.js';
import type { HealthSettings } from './settings.js';
import type { NodeObservation } from './types.js';

type Tracks = Readonly<Record<string, StragglerTrack>>;

/** Periods in a row a node must be slow: three readings span two telemetry periods. */
export const CONFIRM = 3;

/** How a node is named: "node 5 (i-0abc…, ip-10-0-1-23)", from what its own file says. */
export function labelOf(n: NodeObservation): string {
  return nodeLabel(n.rank, { lastSeen: n.at, instanceId: n.instanceId, hostname: n.hostname });
}

/**
 * Advances the straggler tracks by one telemetry period's node files: a node whose `step_time_s` is at
 * least `stragglerRatio` × the median of the others' is counted; slow in three readings in a row (two whole
 * telemetry periods) makes a finding. A
 * confirmed straggler stays one until its ratio falls below half the margin (1.15× for 1.3×), so a node
 * hovering at the threshold does not flap. Nodes without a step time this period keep their track. Pure.
 */
export function judgeStragglers(
  tracks: Tracks,
  nodes: readonly NodeObservation[],
  s: HealthSettings,
): Tracks {
  const timed = nodes.filter((n) => n.stepTimeS !== undefined && n.stepTimeS > 0);
  // With two nodes "the median of the others" is one jittery reading: which one is slow is a coin toss.
  if (timed.length < 3) return tracks;
  const next: Record<string, StragglerTrack> = { ...tracks };
  const clear = 1 + (s.stragglerRatio - 1) / 2;
  for (const n of timed) {
    const others = timed.filter((o) => o.rank !== n.rank).map((o) => o.stepTimeS!);
    const m = median(others);
    const ratio = n.stepTimeS! / m;
    const t = tracks[n.rank];
    if (t && n.at <= t.seen) continue; // the same reading again (an unchanged ETag): no new evidence
    const figures = { s: n.stepTimeS!, m, k: others.length, label: labelOf(n), seen: n.at };
    if (ratio >= s.stragglerRatio) next[n.rank] = { ...figures, since: t?.since ?? n.at, n: (t?.n ?? 0) + 1 };
    else if (t && ratio >= clear) next[n.rank] = { ...t, ...figures };
    else delete next[n.rank];
  }
  return next;
}

/** Confirmed stragglers, worst first. */
export function confirmedStragglers(tracks: Tracks | undefined): [number, StragglerTrack][] {
  return Object.entries(tracks ?? {})
    .filter(([, t]) => t.n >= CONFIRM)
    .map(([r, t]) => [Number(r), t] as [number, StragglerTrack])
    .sort((a, b) => b[1].s / b[1].m - a[1].s / a[1].m || a[0] - b[0]);
}

/** "node 5 (i-…, host) is a straggler: 2.1 s per step vs 1.4 s median of the other 15 nodes for 10m". */
export function stragglerText(confirmed: readonly [number, StragglerTrack][], now: number): string {
  const [, t] = confirmed[0]!;
  const more =
    confirmed.length > 1
      ? `; ${confirmed.length - 1} more straggler${confirmed.length > 2 ? 's' : ''}: node${confirmed.length > 2 ? 's' : ''} ${confirmed
          .slice(1, 6)
          .map(([r]) => r)
          .join(', ')}${confirmed.length > 6 ? ', …' : ''}`
      : '';
  return `${t.label} is a straggler: ${formatSeconds(t.s)} s per step vs ${formatSeconds(t.m)} s median of the other ${t.k} nodes for ${formatDuration(now - t.since)}${more}`;
}

/** The slowest node the straggler judge tracks now, confirmed or not: "node 5 (…): 2.1 s per step vs 1.4 s". */
export function slowestText(tracks: Tracks | undefined): string | undefined {
  const [t] = Object.values(tracks ?? {}).sort((a, b) => b.s / b.m - a.s / a.m);
  return t && `${t.label}: ${formatSeconds(t.s)} s per step vs ${formatSeconds(t.m)} s for the others`;
}
