// The health rules against a clock: a fleet of healthy but noisy runs (must raise nothing) and runs with
// one fault each (how long until it is reported). Pure: `now` is simulated, sweeps are function calls.
import { parseDuration } from '../lambdas/core/base/duration.js';
import {
  DEFAULT_HEALTH_SETTINGS,
  type HealthFindingKind,
  type HealthSettings,
  type HealthState,
  judgeHealth,
} from '../lambdas/core/health/index.js';
import { type Fault, type RunShape, rng, SimRun } from './healthModel.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.UTC(2026, 10, 23, 0, 0, 0);

/** Sweeps a run once a minute, reading node and progress bodies once per telemetry period, as the sweep does. */
export function drive(
  run: SimRun,
  settings: HealthSettings,
  stop: (at: number, kind: HealthFindingKind, text: string) => boolean = () => false,
): void {
  let state: HealthState | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  const end = run.start + run.shape.hours * HOUR;
  for (let now = run.start + MIN; now < end; now += MIN) {
    const due = now - readAt >= settings.telemetryEveryMs;
    if (due) readAt = now;
    const j = judgeHealth({
      state,
      attempt: 1,
      attemptStartedAt: run.start,
      alive: true,
      phase: run.phaseAt(now),
      progress: due ? run.progress(now) : undefined,
      nodes: due && run.shape.unit !== 'steps' ? run.nodeFiles(now) : undefined,
      expectedNodes: run.shape.nodes,
      now,
      settings,
    });
    state = j.state;
    for (const f of j.raised) if (stop(now, f.kind, f.text)) return;
  }
}

function steady(run: SimRun, from: number, to: number): boolean {
  for (let t = from; t <= to; t += 10_000) if (run.phaseAt(t) !== 'training') return false;
  return true;
}

const NODES = [1, 1, 1, 1, 2, 2, 4, 4, 8, 16];
const UNITS = ['tokens', 'tokens', 'samples', 'steps'] as const;

function shape(seed: number, hours: number, fault?: Fault, unit?: RunShape['unit']): RunShape {
  const r = rng(seed * 31 + 7);
  const nodes = NODES[Math.floor(r() * NODES.length)]!;
  return { seed, nodes, hours, unit: unit ?? UNITS[Math.floor(r() * UNITS.length)]!, fault };
}

export interface Latency {
  readonly median: number;
  readonly max: number;
  readonly missed: number;
  readonly bound: number;
  /** Share of the trials reported within the bound. */
  readonly within: number;
}

export interface HealthSimReport {
  readonly runs: number;
  readonly runHours: number;
  /** Findings raised on healthy runs: false alarms (must be 0), by kind, with the first few texts. */
  readonly falseAlarms: number;
  readonly examples: readonly string[];
  readonly latency: Readonly<Record<Fault['kind'], Latency>>;
  /** Idle GPUs from writers that do not report `idle_s`. */
  readonly idleWithoutIdleS: Latency;
}

function latencyOf(
  kind: Fault['kind'],
  want: HealthFindingKind,
  trials: number,
  settings: HealthSettings,
  bound: number,
  idleS = true,
): Latency {
  const found: number[] = [];
  let missed = 0;
  for (let i = 0, done = 0; done < trials; i++) {
    const r = rng(1000 + i);
    const start = T0 + Math.floor(r() * 60) * 1000;
    const unit = kind === 'drop' ? UNITS[done % UNITS.length] : done % 2 ? 'tokens' : 'samples';
    const base = shape(5000 + i, 7, undefined, unit);
    const healthy = new SimRun(
      kind === 'straggler' ? { ...base, nodes: Math.max(4, base.nodes) } : base,
      start,
    );
    // The bound is for steady training: the fault lands where no excluded phase is near (those pause
    // judgement, by design); a run that never trains that long between checkpoints is not a trial. A
    // stuck loop (idle) never reaches its next checkpoint or evaluation; a slow one still does.
    const after = kind === 'idle' ? 0 : bound + 1;
    let at = start + 3 * HOUR + Math.floor(r() * HOUR);
    while (!steady(healthy, at - 2 * MIN, at + after * MIN) && at < start + 6 * HOUR) at += 10_000;
    if (at >= start + 6 * HOUR) continue;
    done++;
    const fault: Fault = kind === 'drop' ? { kind, at } : { kind, at, node: 0 };
    const run = new SimRun({ ...healthy.shape, fault, idleS }, start);
    let latency: number | undefined;
    drive(run, settings, (now, k) => {
      if (k !== want) return false;
      latency = (now - at) / MIN;
      return true;
    });
    if (latency === undefined || latency < 0) missed++;
    else found.push(latency);
  }
  found.sort((a, b) => a - b);
  const q = (p: number) => found[Math.min(found.length - 1, Math.floor(p * found.length))] ?? Number.NaN;
  const within = found.filter((x) => x <= bound).length / trials;
  return { median: q(0.5), max: found.at(-1) ?? Number.NaN, missed, bound, within };
}

/** Runs the fleet and the fault trials; `runs` × `hours` healthy run-hours. */
export function healthSim(
  runs = 200,
  hours = 24,
  trials = 40,
  settings: HealthSettings = DEFAULT_HEALTH_SETTINGS,
): HealthSimReport {
  let falseAlarms = 0;
  const examples: string[] = [];
  for (let i = 0; i < runs; i++) {
    const run = new SimRun(shape(i + 1, hours), T0 + (i % 60) * 1000);
    drive(run, settings, (now, kind, text) => {
      falseAlarms++;
      if (examples.length < 5)
        examples.push(`run ${i + 1} at +${Math.round((now - run.start) / MIN)}m: ${kind}: ${text}`);
      return false;
    });
  }
  const sweep = 1; // minutes between sweeps
  const period = settings.telemetryEveryMs / MIN;
  const idleBound = settings.idleGpuAfterMs / MIN + period;
  return {
    runs,
    runHours: runs * hours,
    falseAlarms,
    examples,
    latency: {
      drop: latencyOf('drop', 'throughput_drop', trials, settings, 2 * period + sweep),
      idle: latencyOf('idle', 'idle_gpus', trials, settings, idleBound),
      straggler: latencyOf('straggler', 'straggler', trials, settings, 3 * period + sweep),
    },
    idleWithoutIdleS: latencyOf('idle', 'idle_gpus', trials, settings, idleBound, false),
  };
}

/** The bench's line. */
export function healthSimLine(r: HealthSimReport): string {
  const l = (x: Latency) =>
    `${x.median.toFixed(1)} min median, ${x.max.toFixed(1)} max (bound ${x.bound}: ${Math.round(x.within * 100)} % within)${x.missed ? `, ${x.missed} missed` : ''}`;
  return `health: false alarms ${r.falseAlarms} over ${r.runHours.toLocaleString('en-US')} run-hours (${r.runs} noisy healthy runs); 50 % drop detected in ${l(r.latency.drop)}; idle GPUs in ${l(r.latency.idle)} (from writers without idle_s: ${l(r.idleWithoutIdleS)}); straggler in ${l(r.latency.straggler)}${r.examples.length ? `\n  ${r.examples.join('\n  ')}` : ''}`;
}

// `npx tsx bench/healthSim.ts [telemetry period]`: `1m` reads every file of writers that write every minute,
// the period at which a drop is told within two writer intervals (docs/HEALTH.md).
if (import.meta.url === `file://${process.argv[1]}`) {
  const t = performance.now();
  const every = process.argv[2] ? parseDuration(process.argv[2]) : undefined;
  const s = every ? { ...DEFAULT_HEALTH_SETTINGS, telemetryEveryMs: every } : DEFAULT_HEALTH_SETTINGS;
  console.log(healthSimLine(healthSim(200, 24, 40, s)), `(${Math.round(performance.now() - t)} ms)`);
}
