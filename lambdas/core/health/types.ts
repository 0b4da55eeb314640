import { type NodeFile, THROTTLE_REASONS, type ThrottleReason } from '../protocol/node.js';
import type { DropCause, GpuBase } from './cause.js';

/** The degraded findings of the health rules; each is one CloudWatch metric (runs with that finding). */
export const HEALTH_FINDING_KINDS = ['throughput_drop', 'straggler', 'idle_gpus', 'data_bound'] as const;
export type HealthFindingKind = (typeof HEALTH_FINDING_KINDS)[number];

/** Metric name per finding kind, e.g. `DegradedThroughputDrop`. */
export const HEALTH_METRICS: Readonly<Record<HealthFindingKind, string>> = {
  throughput_drop: 'DegradedThroughputDrop',
  straggler: 'DegradedStraggler',
  idle_gpus: 'DegradedIdleGpus',
  data_bound: 'DegradedDataBound',
};

/** One finding: `page` false is status only (data-bound), never an alert. */
export interface HealthFinding {
  readonly kind: HealthFindingKind;
  /** Key in the run item's `findings` map: `health.<kind>`. */
  readonly key: `health.${HealthFindingKind}`;
  readonly text: string;
  readonly page: boolean;
  /** The nodes it names (straggler, idle GPUs, data-bound). */
  readonly nodes?: readonly number[];
}

/** A newly read `progress.json`: its step and S3 LastModified (rates, if the client writes them). */
export interface ProgressObservation {
  readonly at: number;
  readonly step: number;
  readonly tokensPerS?: number;
  readonly samplesPerS?: number;
}

/** A newly read `nodes/{rank}.json`, reduced to what the health rules need; `at` is its LastModified. */
export interface NodeObservation {
  readonly rank: number;
  readonly at: number;
  readonly instanceId?: string;
  readonly hostname?: string;
  readonly step?: number;
  readonly stepTimeS?: number;
  readonly tokensPerS?: number;
  readonly samplesPerS?: number;
  /** Utilisation (%) by GPU index; GPUs without a reading are left out. */
  readonly gpuUtil?: readonly GpuReading[];
}

/**
 * One GPU's utilisation (%), how long the writer has seen it at ≤ 5 % (`idle_s`), and where NVML gives
 * them its SM clock (MHz), power (W) and known throttle reasons: what tells a throttled GPU from a waiting one.
 */
export interface GpuReading {
  readonly index: number;
  readonly util: number;
  readonly idleS?: number;
  readonly smMhz?: number;
  readonly powerW?: number;
  /** Present only when NVML named a known reason. */
  readonly throttle?: readonly ThrottleReason[];
}

const num = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** A parsed node file (see parseNodeFile) as a health observation; `lastModified` from the LIST. */
export function nodeObservation(file: NodeFile, lastModified: number): NodeObservation {
  const gpuUtil = (file.gpus ?? []).flatMap((g): GpuReading[] => {
    if (num(g.util) === undefined) return [];
    const r: { -readonly [K in keyof GpuReading]: GpuReading[K] } = {
      index: g.index,
      util: g.util as number,
    };
    const idleS = num(g.idle_s);
    const smMhz = num(g.sm_clock_mhz);
    const powerW = num(g.power_w);
    const throttle = g.throttle?.filter((t): t is ThrottleReason =>
      (THROTTLE_REASONS as readonly string[]).includes(t),
    );
    if (idleS !== undefined) r.idleS = idleS;
    if (smMhz !== undefined) r.smMhz = smMhz;
    if (powerW !== undefined) r.powerW = powerW;
    if (throttle?.length) r.throttle = throttle;
    return [r];
  });
  return {
    rank: file.node_rank,
    at: lastModified,
    instanceId: file.instance_id,
    hostname: file.hostname,
    step: num(file.step),
    stepTimeS: num(file.step_time_s),
    tokensPerS: num(file.tokens_per_s),
    samplesPerS: num(file.samples_per_s),
    gpuUtil: gpuUtil.length ? gpuUtil : undefined,
  };
}

/** What a rate is counted in; a run that starts reporting a finer unit switches once, never back. */
export type RateUnit = 'tokens' | 'samples' | 'steps';

/** The run's rate and its baseline (a ring of per-period rates; the baseline is their median). */
export interface RateState {
  readonly unit?: RateUnit;
  /** The observation the next period's rate is measured from (its step, for steps/s). */
  readonly last?: { readonly at: number; readonly step?: number };
  /** An excluded phase was seen since `last`: the next period is not measured. */
  readonly taint?: boolean;
  /** The last sweep that saw an excluded phase (a point rate read well after it is clean again). */
  readonly pausedAt?: number;
  /** Per-period rates of healthy periods, oldest first (bounded by the baseline window). */
  readonly base: readonly number[];
  /** The last (up to) two periods: [from, to, rate]. */
  readonly recent: readonly (readonly [number, number, number])[];
  /** An active throughput drop: since when, and the baseline it is measured against (frozen). */
  readonly drop?: { readonly since: number; readonly base: number };
  /** What the GPUs did in healthy periods (a running mean): the "before" of a drop's cause. */
  readonly gpu?: GpuBase;
  /** The latest healthy reading's GPUs, blended into `gpu` at the next healthy one. */
  readonly gpuNext?: GpuBase;
  /** What the GPUs did in the latest reading below the baseline: kept only while a drop is pending or active. */
  readonly cause?: DropCause;
}

/** A node whose step time is far above the others': since when, periods in a row, and the last figures. */
export interface StragglerTrack {
  readonly since: number;
  readonly n: number;
  /** Its step time, the others' median and how many others, at the last period. */
  readonly s: number;
  readonly m: number;
  readonly k: number;
  readonly label: string;
  /** When its node file was last judged: a track not refreshed for a few periods is dropped. */
  readonly seen: number;
}

/** A node with idle (or, while steps advance, low) GPUs: since when, which GPUs, and whether steps advanced. */
export interface IdleTrack {
  readonly since: number;
  /** Idle GPU indices as ranges (`0-7`), empty when only the mean is low. */
  readonly gpus: string;
  /** Mean utilisation (%) of the node's GPUs at the last period. */
  readonly util: number;
  /** The run's step when this began, to tell data-bound (steps advance) from idle. */
  readonly step?: number;
  readonly advanced?: boolean;
  readonly label: string;
  readonly seen: number;
}

/** What the run item keeps for the health rules (`health` attribute): small and bounded. */
export interface HealthState {
  readonly attempt: number;
  readonly rate: RateState;
  /** The latest measured rate, for status. */
  readonly current?: number;
  /** The latest progress.json seen, for nodes that do not report their step. */
  readonly progress?: { readonly at: number; readonly step: number };
  /** The most nodes seen at once (a single-node run's drop has other likely causes). */
  readonly nodes?: number;
  readonly stragglers?: Readonly<Record<string, StragglerTrack>>;
  readonly idle?: Readonly<Record<string, IdleTrack>>;
  /** Finding kinds active after the last judgement: what the next one reports as raised or cleared. */
  readonly on?: readonly HealthFindingKind[];
}
