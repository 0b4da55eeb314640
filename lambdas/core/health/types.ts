import type { HealthFindingKind } from '../model/slices/health.js';
import { type NodeFile, THROTTLE_REASONS, type ThrottleReason } from '../protocol/node.js';

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
