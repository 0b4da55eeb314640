import { formatRate, formatUtc, median } from '../base/format.js';
import type { RateState, RateUnit } from '../model/slices/health.js';
import { blendGpus, causeText, dropCause, gpuNow, idleThrough } from './cause.js';
import type { RateSample } from './rate.js';
import type { HealthSettings } from './settings.js';
import type { NodeObservation } from './types.js';

/** How a throughput-drop finding begins: remediation's rule matches it to check the NCCL transport (any cause). */
export const THROUGHPUT_DROP_PREFIX = 'throughput fell';

/** How many periods the baseline holds (its window) and needs before it judges (half of them, at least 3). */
export function baselineSize(s: HealthSettings): { max: number; min: number } {
  const max = Math.min(48, Math.max(3, Math.round(s.baselineWindowMs / s.telemetryEveryMs)));
  return { max, min: Math.max(3, Math.ceil(max / 2)) };
}

/** The run's baseline: the median of its recent healthy periods, once there are enough of them. */
export function baselineOf(r: RateState, s: HealthSettings): number | undefined {
  if (r.drop) return r.drop.base;
  return r.base.length >= baselineSize(s).min ? median(r.base) : undefined;
}

/**
 * Judges one period's rate against the baseline. A drop needs the last period at least `throughputDrop`
 * below it, and the one before (point rates) or both together (steps/s) too, so one slow period, or
 * ±20 % jitter, never counts; one reading is enough when a node's GPUs were idle through it (idleThrough).
 * It ends when a period is back within half that margin (hysteresis: a rate hovering at the threshold does
 * not flap). Periods enter the baseline only while no drop is active or pending, so a drop never becomes
 * the new normal; so do their GPUs (`gpu`, the "before" of a cause). `nodes`: the node files read with
 * this period, whose GPUs say why a reading is low (`cause`). Pure.
 */
export function judgeThroughput(
  r: RateState,
  sample: RateSample,
  s: HealthSettings,
  nodes: readonly NodeObservation[] = [],
): RateState {
  const recent = [...r.recent, [sample.from, sample.to, sample.rate] as const].slice(-2);
  const { max } = baselineSize(s);
  // A healthy reading's GPUs join the "before" one reading late: the reading just ahead of a drop may be
  // partly in it (its rate not yet below, its GPUs sampled after the onset), and must not be the "before".
  const push = (x: RateState): RateState => ({
    ...x,
    base: [...x.base, sample.rate].slice(-max),
    gpu: blendGpus(x.gpu, x.gpuNext),
    gpuNext: gpuNow(nodes, s),
    cause: undefined,
  });
  const why = (x: RateState, base: number): RateState => {
    const cause = dropCause(nodes, r.gpu, 1 - sample.rate / base, s);
    return cause ? { ...x, cause } : x;
  };
  if (r.drop) {
    const recovered = sample.rate >= r.drop.base * (1 - s.throughputDrop / 2);
    return recovered ? push({ ...r, recent, drop: undefined }) : why({ ...r, recent }, r.drop.base);
  }
  const base = baselineOf(r, s);
  if (base === undefined) return push({ ...r, recent });
  const below = (x: number) => x <= base * (1 - s.throughputDrop);
  const span = recent.reduce((t, [a, b]) => t + (b - a), 0);
  const mean = recent.reduce((t, [a, b, x]) => t + x * (b - a), 0) / span;
  // A client's tokens/s covers the time since its previous file, so both readings must show the drop (one
  // that covers a pause the sweep never saw must not count); steps/s between two observations is an
  // average, so the two periods together must, which also counts a drop that began halfway through the first.
  const enough =
    (r.unit === 'steps' ? below(mean) : below(recent[0]?.[2] ?? Number.POSITIVE_INFINITY)) ||
    idleThrough(nodes, sample.to - sample.from, s);
  if (recent.length === 2 && below(sample.rate) && enough) {
    // Since the first reading that showed it (an average over a period: since that period began).
    const first = below(recent[0]![2]) ? recent[0]! : recent[1]!;
    const since = r.unit === 'steps' ? first[0] : first[1];
    return why({ ...r, recent, drop: { since, base } }, base);
  }
  return below(sample.rate) ? why({ ...r, recent }, base) : push({ ...r, recent });
}

const UNITS: Readonly<Record<RateUnit, string>> = {
  tokens: 'tokens/s',
  samples: 'samples/s',
  steps: 'steps/s',
};

/** The alert line of an active drop, with what the GPUs did (cause.ts); `slowest`: a straggler, if tracked. */
export function dropText(
  r: RateState,
  current: number,
  multiNode: boolean,
  now: number,
  slowest?: string,
): string {
  const base = r.drop!.base;
  const pct = Math.round((1 - current / base) * 100);
  const cause = causeText(r.cause, multiNode, slowest);
  return `${THROUGHPUT_DROP_PREFIX} ${pct} % (${formatRate(base)} → ${formatRate(current)} ${UNITS[r.unit ?? 'steps']}) since ${formatUtc(r.drop!.since, now)}; ${cause}`;
}

/** The recovery line. */
export function recoveredText(r: RateState, current: number | undefined, s: HealthSettings): string {
  const base = baselineOf(r, s);
  const unit = UNITS[r.unit ?? 'steps'];
  return current === undefined || base === undefined
    ? 'throughput recovered'
    : `throughput recovered: ${formatRate(current)} ${unit} (baseline ${formatRate(base)} ${unit})`;
}

export { UNITS as RATE_UNITS };
