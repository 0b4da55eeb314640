import type { HealthFindingKind, HealthState } from '../model/slices/health.js';
import { confirmedIdle, dataBoundText, idleText } from './idle.js';
import type { HealthSettings } from './settings.js';
import { confirmedStragglers, slowestText, stragglerText } from './straggler.js';
import { dropText, recoveredText } from './throughput.js';
import type { HealthFinding } from './types.js';

/** Which kinds page someone: data-bound is a status finding only (the run works, just slowly fed). */
export const PAGES: Readonly<Record<HealthFindingKind, boolean>> = {
  throughput_drop: true,
  straggler: true,
  idle_gpus: true,
  data_bound: false,
};

const RECOVERED: Readonly<Record<Exclude<HealthFindingKind, 'throughput_drop'>, string>> = {
  straggler: 'no straggler node any more',
  idle_gpus: 'the idle GPUs are busy again',
  data_bound: 'GPU utilisation is back up',
};

const finding = (kind: HealthFindingKind, text: string, nodes?: number[]): HealthFinding => ({
  kind,
  key: `health.${kind}`,
  text,
  page: PAGES[kind],
  ...(nodes ? { nodes } : {}),
});

/** The active findings of a judged state, one per kind, with texts as of `now` (GPU-hours grow). */
export function findingsOf(h: HealthState, now: number, s: HealthSettings): HealthFinding[] {
  const out: HealthFinding[] = [];
  // A rate of 0 is no slowdown but a stop: the stall rules judge it, with the stacks (one alert, the culprit's).
  if (h.rate.drop && h.current !== undefined && h.current > 0)
    out.push(
      finding(
        'throughput_drop',
        dropText(h.rate, h.current, (h.nodes ?? 1) > 1, now, slowestText(h.stragglers)),
      ),
    );
  const strag = confirmedStragglers(h.stragglers);
  if (strag.length) out.push(finding('straggler', stragglerText(strag, now), ranks(strag)));
  const c = confirmedIdle(h.idle, now, s);
  if (c.idle.length) out.push(finding('idle_gpus', idleText(c.idle, now, s), ranks(c.idle)));
  if (c.dataBound.length)
    out.push(finding('data_bound', dataBoundText(c.dataBound, now), ranks(c.dataBound)));
  return out;
}

const ranks = (tracks: readonly [number, unknown][]) => tracks.map(([r]) => r);

/** Kinds active before and not now, with the line of their recovery alert. */
export function clearedSince(
  was: readonly HealthFindingKind[],
  h: HealthState,
  findings: readonly HealthFinding[],
  s: HealthSettings,
): { kind: HealthFindingKind; text: string; page: boolean }[] {
  return was
    .filter((k) => !findings.some((f) => f.kind === k))
    .map((kind) => ({
      kind,
      page: PAGES[kind],
      text: kind === 'throughput_drop' ? recoveredText(h.rate, h.current, s) : RECOVERED[kind],
    }));
}
