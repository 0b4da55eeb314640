/** The degraded findings of the health rules; each is one CloudWatch metric (runs with that finding). */
export const HEALTH_FINDING_KINDS = ['throughput_drop', 'straggler', 'idle_gpus', 'data_bound'] as const;

export type HealthFindingKind = (typeof HEALTH_FINDING_KINDS)[number];

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

/** The GPUs of healthy periods: mean busy %, the busy GPUs' median SM clock (MHz) and power (W). */
export interface GpuBase {
  readonly u: number;
  readonly c?: number;
  readonly w?: number;
}

/** Why throughput fell, as the node readings of its periods tell it (compact: kept in the run item). */
export type DropCause =
  /** The GPUs of `nodes` (ranges; `all`: every node read) waited for work, idle `idle` % of the time. */
  | { readonly k: 'wait'; readonly nodes: string; readonly all: boolean; readonly idle: number }
  /** The most throttled busy GPU: its throttle reasons, SM clock and power before → now. */
  | {
      readonly k: 'hot';
      readonly node: number;
      readonly gpu: number;
      readonly why?: string;
      readonly c?: readonly [number, number];
      readonly w?: readonly [number, number];
    }
  /** Busy as before (`u` %), at the usual clocks where `clocks` (they were compared). */
  | { readonly k: 'busy'; readonly u: number; readonly clocks: boolean };

/** A run's own thresholds, from `metadata.json`; compact, to keep in the run item's known metadata. */
export interface HealthOverrides {
  readonly throughputDrop?: number;
  readonly idleGpuAfterMs?: number;
  readonly stragglerRatio?: number;
  readonly warmupMs?: number;
  readonly enabled?: boolean;
}
