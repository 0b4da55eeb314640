// A simulated training run for the health simulation: a timeline of phases at 10 s resolution and what
// its files would say when read. Pure and seeded, so every figure is reproducible.
import type { NodeObservation, ProgressObservation } from '../lambdas/core/health/index.js';

const TICK = 10_000;
const MIN = 60_000;

/** mulberry32: small, fast, good enough for noise. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Fault =
  | { kind: 'drop'; at: number }
  | { kind: 'idle'; at: number; node: number }
  | { kind: 'straggler'; at: number; node: number };

export interface RunShape {
  readonly seed: number;
  readonly nodes: number;
  readonly hours: number;
  /** What the client reports: tokens/s or samples/s in node files, else steps only. */
  readonly unit: 'tokens' | 'samples' | 'steps';
  readonly fault?: Fault;
  /** The writer reports `idle_s` (the Python client does; the CLI and the bash snippet do not). */
  readonly idleS?: boolean;
}

type Phase = 'setup' | 'training' | 'checkpointing' | 'evaluation';

/** One run: phase, cumulative steps and rate per 10 s tick; node and progress files derived from them. */
export class SimRun {
  readonly phase: Phase[] = [];
  /** Steps done by the end of each tick. */
  readonly steps: number[] = [];
  readonly ticks: number;
  private readonly stepTime: number;
  private readonly perNode: number;
  private readonly offsets: number[];
  private readonly rand: () => number;

  constructor(
    readonly shape: RunShape,
    readonly start: number,
  ) {
    const r = rng(shape.seed);
    this.rand = r;
    this.ticks = Math.ceil((shape.hours * 60 * MIN) / TICK);
    this.stepTime = 0.4 + r() * 2.5; // seconds per step
    this.perNode = (shape.unit === 'tokens' ? 20_000 + r() * 80_000 : 50 + r() * 400) / 1;
    this.offsets = Array.from({ length: shape.nodes }, () => Math.floor(r() * 60) * 1000);
    const setup = (2 + r() * 6) * MIN;
    const ramp = (2 + r() * 4) * MIN;
    const ckEvery = (20 + r() * 40) * MIN;
    const ckDur = (0.3 + r() * 5.7) * MIN;
    const evEvery = (60 + r() * 120) * MIN;
    const evDur = (3 + r() * 17) * MIN;
    let jitter = 1;
    let done = 0;
    for (let k = 0; k < this.ticks; k++) {
      const t = k * TICK;
      if (k % 6 === 0) jitter = 0.8 + r() * 0.4; // ±20 % jitter, minute by minute
      const tt = t - setup;
      let phase: Phase = 'training';
      const stuck = shape.fault?.kind === 'idle' && t >= shape.fault.at - start;
      if (stuck)
        phase = 'training'; // a deadlocked loop never reaches its next checkpoint
      else if (t < setup) phase = 'setup';
      else if (tt % evEvery > evEvery - evDur) phase = 'evaluation';
      else if (tt % ckEvery > ckEvery - ckDur) phase = 'checkpointing';
      let speed = phase === 'training' ? jitter * Math.min(1, 0.3 + (0.7 * tt) / ramp) : 0;
      if (r() < 0.02) speed *= 1 - (2 + r() * 6) / 10; // an occasional slow step (2–8 s lost)
      const f = shape.fault;
      if (f && t >= f.at - start) {
        if (f.kind === 'drop') speed *= 0.5;
        else if (f.kind === 'idle') speed = 0;
        else speed /= 1.5; // a straggler slows every synchronous step
      }
      done += (speed * TICK) / 1000 / this.stepTime;
      this.phase.push(phase);
      this.steps.push(done);
    }
  }

  private tick(at: number): number {
    return Math.max(0, Math.min(this.ticks - 1, Math.floor((at - this.start) / TICK)));
  }

  /** When the stretch of the phase at tick k began. */
  private stretchStart(k: number): number {
    let i = k;
    while (i > 0 && this.phase[i - 1] === this.phase[k]) i--;
    return this.start + i * TICK;
  }

  phaseAt(at: number): Phase {
    return this.phase[this.tick(at)]!;
  }

  /** progress.json as last written (every 30 s) before `now`. */
  progress(now: number): ProgressObservation {
    const at = this.start + Math.floor((now - this.start) / 30_000) * 30_000;
    return { at, step: Math.floor(this.steps[this.tick(at)]!) };
  }

  /** Every node's file as last written (every 60 s, at its own offset) before `now`. */
  nodeFiles(now: number): NodeObservation[] {
    const f = this.shape.fault;
    return this.offsets.map((off, rank) => {
      const at = this.start + off + Math.floor((now - this.start - off) / MIN) * MIN;
      const k = this.tick(at);
      const stepsLastMin = this.steps[k]! - this.steps[Math.max(0, k - 6)]!;
      const phase = this.phase[k]!;
      const rate = stepsLastMin / 60; // steps/s over the last minute
      const noise = 0.9 + this.rand() * 0.2;
      let stepTime = rate > 0 ? (1 / rate) * noise : undefined;
      const faulty = f && f.kind !== 'drop' && f.node === rank && at >= f.at;
      // Step time is each node's own compute time: the straggler's is the slow one the others wait for.
      if (!faulty && f?.kind === 'straggler' && at >= f.at && stepTime) stepTime /= 1.5;
      const util = (): number => {
        if (faulty && f.kind === 'idle') return this.rand() * 3;
        if (phase === 'training') return 85 + this.rand() * 15;
        if (phase === 'evaluation') return 40 + this.rand() * 50;
        return this.rand() * 10;
      };
      // The writer's idle_s: since its first sample (one per write) at ≤ 5 %. A stuck node's GPUs from the
      // first write after the fault; in a pause, from the pause's start (the most a writer could say).
      const idleSince =
        faulty && f.kind === 'idle'
          ? this.start + off + Math.ceil((f.at - this.start - off) / MIN) * MIN
          : this.stretchStart(k);
      const gpu = (index: number) => {
        const u = util();
        return {
          index,
          util: u,
          ...(u <= 5 && this.shape.idleS !== false ? { idleS: Math.max(0, at - idleSince) / 1000 } : {}),
        };
      };
      const perS = rate * this.stepTime * this.perNode * noise;
      return {
        rank,
        at,
        instanceId: `i-0${(this.shape.seed * 7919 + rank).toString(16).padStart(8, '0')}`,
        step: Math.floor(this.steps[k]!),
        stepTimeS: stepTime,
        ...(this.shape.unit === 'tokens' ? { tokensPerS: perS } : {}),
        ...(this.shape.unit === 'samples' ? { samplesPerS: perS } : {}),
        gpuUtil: Array.from({ length: 8 }, (_, index) => gpu(index)),
      };
    });
  }
}
