import { median, showRanges, toRanges } from '../base/format.js';
import type { DropCause, GpuBase } from '../model/slices/health.js';
import type { HealthSettings } from './settings.js';
import type { GpuReading, NodeObservation } from './types.js';

/** Reasons that slow a busy GPU for heat or power. */
const HEAT_OR_POWER: readonly string[] = [
  'hw_slowdown',
  'hw_thermal',
  'hw_power_brake',
  'sw_thermal',
  'sw_power_cap',
];
// A GPU at full load sits at its power cap: `sw_power_cap` alone is normal, it counts with a lower clock.
const ALONE = HEAT_OR_POWER.slice(0, 4);
/** A busy GPU at or below this share of the run's usual SM clock (or power) runs throttled. */
const SLOWER = 0.9;
/** Weight of the latest healthy period in the GPUs' running "before". */
const BLEND = 0.25;

/** A GPU's busy %: one the writer counts idle (`idle_s`) or at the idle mark is 0. */
const busy = (g: GpuReading, s: HealthSettings) =>
  g.idleS !== undefined || g.util <= s.idleGpuUtil ? 0 : g.util;
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const gpusOf = (nodes: readonly NodeObservation[]) => nodes.flatMap((n) => n.gpuUtil ?? []);
const nums = (xs: readonly (number | undefined)[]) => xs.filter((x): x is number => x !== undefined);

/** What a reading's GPUs did, to blend into the "before" (whole numbers: the run item stays small). */
export function gpuNow(nodes: readonly NodeObservation[], s: HealthSettings): GpuBase | undefined {
  const gpus = gpusOf(nodes);
  if (!gpus.length) return undefined;
  const on = gpus.filter((g) => busy(g, s) > 0);
  const mid = (xs: number[]) => (xs.length ? Math.round(median(xs)) : undefined);
  const c = mid(nums(on.map((g) => g.smMhz)));
  const w = mid(nums(on.map((g) => g.powerW)));
  return {
    u: Math.round(mean(gpus.map((g) => busy(g, s)))),
    ...(c !== undefined ? { c } : {}),
    ...(w !== undefined ? { w } : {}),
  };
}

/** The running "before", blended with a healthy reading's GPUs. */
export function blendGpus(b: GpuBase | undefined, x: GpuBase | undefined): GpuBase | undefined {
  if (!b || !x) return b ?? x;
  const mix = (old?: number, v?: number) =>
    v === undefined ? old : old === undefined ? v : Math.round(old + BLEND * (v - old));
  const c = mix(b.c, x.c);
  const w = mix(b.w, x.w);
  return { u: mix(b.u, x.u)!, ...(c !== undefined ? { c } : {}), ...(w !== undefined ? { w } : {}) };
}

/**
 * A node whose GPUs were all idle at this write and at the one before (`idle_s` covers the reading's
 * span): the low rate lasted a whole writer interval, which one low reading after a pause no sweep saw
 * cannot show (its GPUs are busy again when the file is written).
 */
export function idleThrough(nodes: readonly NodeObservation[], spanMs: number, s: HealthSettings): boolean {
  return nodes.some(
    (n) =>
      n.gpuUtil?.length &&
      n.gpuUtil.every((g) => g.util <= s.idleGpuUtil && (g.idleS ?? -1) * 1000 >= 0.8 * spanMs),
  );
}

/**
 * What the GPUs did in a reading `drop` (a fraction) below the baseline: nodes whose GPUs went idle or
 * less busy than before by half the drop waited (for data); else the most throttled busy GPU (a heat or power reason, or an
 * SM clock ≥ 10 % below the run's usual); else busy as before. Undefined without GPU readings.
 */
export function dropCause(
  nodes: readonly NodeObservation[],
  before: GpuBase | undefined,
  drop: number,
  s: HealthSettings,
): DropCause | undefined {
  const read = nodes.filter((n) => n.gpuUtil?.length);
  if (!read.length) return undefined;
  // Less busy than before by half the drop or more (a run always this data-bound is not a new cause).
  const mark = before ? Math.max(s.idleGpuUtil, before.u * (1 - drop / 2)) : s.lowGpuUtil;
  const waited = read.filter((n) => mean(n.gpuUtil!.map((g) => busy(g, s))) <= mark);
  if (waited.length) {
    const idle = Math.round(100 - mean(gpusOf(waited).map((g) => busy(g, s))));
    return {
      k: 'wait',
      nodes: toRanges(waited.map((n) => n.rank)),
      all: waited.length === read.length,
      idle,
    };
  }
  let hot: { x: number; n: NodeObservation; g: GpuReading; why: string[] } | undefined;
  for (const n of read)
    for (const g of n.gpuUtil!) {
      const why = (g.throttle ?? []).filter((t) => HEAT_OR_POWER.includes(t));
      const x = before?.c && g.smMhz !== undefined ? g.smMhz / before.c : 1;
      if (!busy(g, s) || (x > SLOWER && !why.some((t) => ALONE.includes(t)))) continue;
      if (!hot || x < hot.x || (x === hot.x && why.length > hot.why.length)) hot = { x, n, g, why };
    }
  const gpus = gpusOf(read);
  if (!hot)
    return {
      k: 'busy',
      u: Math.round(mean(gpus.map((g) => busy(g, s)))),
      clocks: before?.c !== undefined && gpus.some((g) => g.smMhz !== undefined),
    };
  const { n, g, why } = hot;
  const w = before?.w && g.powerW !== undefined && g.powerW <= SLOWER * before.w ? before.w : undefined;
  return {
    k: 'hot',
    node: n.rank,
    gpu: g.index,
    ...(why.length ? { why: why.join(', ') } : {}),
    ...(before?.c && g.smMhz !== undefined ? { c: [before.c, Math.round(g.smMhz)] as const } : {}),
    ...(w ? { w: [w, Math.round(g.powerW!)] as const } : {}),
  };
}

const onNodes = (ranges: string) => `node${/[-,]/.test(ranges) ? 's' : ''} ${showRanges(ranges)}`;

/** The cause part of a drop's alert; `slowest`: the node the straggler judge tracks, if any. (A stop is no drop.) */
export function causeText(c: DropCause | undefined, multiNode: boolean, slowest?: string): string {
  const waited = c?.k === 'wait' && multiNode && !c.all ? `the GPUs of ${onNodes(c.nodes)}` : 'the GPUs';
  if (!c)
    return multiNode
      ? 'a frequent cause is NCCL falling back from EFA to sockets'
      : 'frequent causes are GPU thermal or power throttling and a slower input pipeline';
  if (c.k === 'wait')
    return `${waited} waited (idle ${c.idle} % of the time): the input pipeline (data loading) is the likely cause`;
  if (c.k === 'hot') {
    const at = `${multiNode ? `node ${c.node} ` : ''}GPU ${c.gpu}`;
    const parts = [c.why, c.c && `SM ${c.c[0]} → ${c.c[1]} MHz`, c.w && `${c.w[0]} → ${c.w[1]} W`];
    return `GPU thermal/power throttling (${[at, parts.filter(Boolean).join(', ')].filter(Boolean).join(': ')})`;
  }
  const busyNow = `the GPUs stayed busy (${c.u} %${c.clocks ? ', clocks as before' : ''})`;
  return multiNode
    ? `${busyNow}: communication (NCCL falling back from EFA to sockets: check the transport) or a slower node${slowest ? ` (${slowest})` : ''}`
    : `${busyNow}: neither the input pipeline nor throttling; look for more work per step (batch, sequence length) or another process on the GPUs`;
}
