// How well the stacks name the node a hung multi-node run waits for (issue 25, item 6). Each trial is a
// stalled run from bench/stackModel.ts, folded exactly as the sweep folds the run it finds STALLED: node
// bodies through observeNodes, stack files through planStackReads and observeStacks. Scored on
// `record.stacks.suspects`: right (the culprit alone), wrong (any other node named), none. Seeds 1–500
// are for looking at failures. Seeds 501–2500 were the first held-out set: the analyzer missed its targets
// there, and the fixes that followed were made from the failures of seeds 1–500 only; as 501–2500's
// results had been seen, they count as seen. Seeds 2501–4500 then passed; a later change (a frozen node
// found by its node file predating the others' stuck time, from a real recording, not from the simulation)
// was checked on the tuning seeds and is reported on 4501–6500, never run before it. docs/REMEDIATION.md
// keeps all three. Pure.

import type { RunRecord } from '../lambdas/core/model/record.js';
import type { StackSummary } from '../lambdas/core/model/slices/stacks.js';
import { RunState } from '../lambdas/core/model/states.js';
import { observeNodes, parseNodeReads } from '../lambdas/core/nodes/observe.js';
import { assess } from '../lambdas/core/pipeline/index.js';
import { observeStacks, planStackReads } from '../lambdas/core/stacks/observe.js';
import { type Case, CULPRITS, HEALTHY, type Peers, simulate, type Trial } from './stackModel.js';

export const SIZES = [2, 4, 8, 16, 32, 64] as const;
export const TUNING: readonly [number, number] = [1, 500];
export const HELD_OUT: readonly [number, number] = [4501, 6500];
/** The scenarios outside the issue's targets are held out on fewer seeds (each trial costs ~4 ms). */
export const HELD_OUT_EXTRA: readonly [number, number] = [4501, 5000];
const MIN = 60_000;

/** One scenario: who is stuck where, and how waiting peers show it. `extra`: outside the issue's targets. */
export interface Scenario {
  readonly name: string;
  readonly peers: Peers;
  readonly case: Case;
  readonly extra: boolean;
}

const named = (peers: Peers, c: Case, extra: boolean): Scenario => ({
  name: 'culprit' in c ? c.culprit : `healthy ${c.healthy}`,
  peers,
  case: c,
  extra,
});
export const SCENARIOS: readonly Scenario[] = [
  ...CULPRITS.map((culprit) => named('collective', { culprit }, false)),
  ...HEALTHY.map((healthy) => named('collective', { healthy }, false)),
  named('collective', { healthy: 'evaluation' }, true),
  ...CULPRITS.map((culprit) => named('sync', { culprit }, true)),
  named('sync', { healthy: 'collective' }, true),
];

/** The trial seed of one scenario: its name and peers mixed in, so scenarios never share draws. */
function trialSeed(s: Scenario, seed: number): number {
  let h = s.peers === 'sync' ? 7 : 3;
  for (const ch of s.name) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return (h ^ Math.imul(seed, 0x9e3779b1)) >>> 0;
}

/** The trial of `scenario` at `seed`; the fleet size follows the seed (2, 4, 8, 16, 32, 64 in turn). */
export function trialOf(scenario: Scenario, seed: number): Trial {
  return simulate(
    trialSeed(scenario, seed),
    scenario.case,
    scenario.peers,
    SIZES[(seed - 1) % SIZES.length]!,
  );
}

/** The record before the sweep that finds the run STALLED (it was RUNNING, progress.json read). */
function before(t: Trial): RunRecord {
  return {
    runId: t.run.runId,
    state: RunState.RUNNING,
    reason: `heartbeats fresh, at step ${t.step}`,
    attempt: 1,
    version: 40,
    since: t.run.firstSeenAt,
    updatedAt: t.now - MIN,
    firstSeenAt: t.run.firstSeenAt,
    facts: {
      etags: { progress: t.run.files.progress!.etag, metadata: t.run.files.metadata!.etag },
      step: t.step,
      stepAdvancedAt: t.stepAdvancedAt,
    },
  };
}

/** The thresholds the trial's run is judged with. */
export const thresholdsOf = (t: Trial) => ({
  staleAfterMs: 10 * MIN,
  stallAfterMs: t.notes.stallMin * MIN,
  startupGraceMs: 10 * MIN,
  phaseStaleAfterMs: {},
});

/** The state the sweep gives the trial's run at `at` (the model claims: STALLED first at `now`). */
export const stateAt = (t: Trial, at: number) => assess(t.run, before(t), at, thresholdsOf(t)).state;

/**
 * The stack verdict the sweep stores when it finds the run STALLED: entering STALLED is a candidate
 * transition, so every changed node body is read (pipeline/checkRun.ts), then the stack files.
 */
export function verdictOf(t: Trial): StackSummary | undefined {
  const known = observeNodes(before(t), t.run, parseNodeReads(t.run, t.nodeBodies), undefined, t.now);
  const reads = new Map(
    planStackReads(t.run, known, undefined).map((rank) => [rank, t.stackBodies.get(rank)]),
  );
  return observeStacks(known, t.run, reads, undefined, t.now).facts.stacks;
}

export type Outcome = 'right' | 'wrong' | 'none';
/** Right: exactly the culprit named; wrong: any other node named; none: nobody. A healthy run: any name is wrong. */
export function outcomeOf(t: Trial, suspects: readonly number[]): Outcome {
  if (suspects.length === 0) return 'none';
  return suspects.length === 1 && suspects[0] === t.culprit ? 'right' : 'wrong';
}

export interface Cell {
  trials: number;
  right: number;
  wrong: number;
  none: number;
  /** Trials where no node had a current stack when the sweep looked: nothing to judge (counted in none). */
  blind: number;
}
export interface Row {
  readonly scenario: Scenario;
  readonly from: number;
  readonly to: number;
  readonly bySize: Readonly<Record<number, Cell>>;
  readonly all: Cell;
}
/** Failed trials grouped by what shaped them, with one verdict as printed. */
export interface Failure {
  readonly key: string;
  readonly count: number;
  readonly example: string;
}
export interface StackSimReport {
  readonly rows: readonly Row[];
  readonly failures: readonly Failure[];
}

const empty = (): Cell => ({ trials: 0, right: 0, wrong: 0, none: 0, blind: 0 });

/** Runs every scenario at seeds `from`–`to`. */
export function stackSim(
  from: number,
  to: number,
  scenarios: readonly Scenario[] = SCENARIOS,
): StackSimReport {
  const failures = new Map<string, { count: number; example: string }>();
  const rows = scenarios.map((scenario): Row => {
    const bySize: Record<number, Cell> = Object.fromEntries(SIZES.map((n) => [n, empty()]));
    const all = empty();
    for (let seed = from; seed <= to; seed++) {
      const t = trialOf(scenario, seed);
      const v = verdictOf(t);
      const o = outcomeOf(t, v?.suspects ?? []);
      for (const cell of [bySize[t.run.nodes!.length]!, all]) {
        cell.trials++;
        cell[o]++;
        if (!v) cell.blind++;
      }
      const good = 'healthy' in scenario.case ? o === 'none' : o === 'right';
      if (good) continue;
      const n = t.notes;
      const key = [
        `${scenario.peers} ${scenario.name}: ${o}`,
        `${n.program.framework}/${n.program.layout}`,
        n.missing ? 'stacks not yet written' : '',
        n.stale ? 'stale stack left' : '',
        n.subs ? `some nodes in save's ${[...new Set(n.subs.split(','))].sort().join('/')}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      const f = failures.get(key) ?? { count: 0, example: '' };
      f.count++;
      if (!f.example)
        f.example = `seed ${seed}, ${t.run.nodes!.length} nodes, culprit ${t.culprit ?? '-'}, stall ${n.stallMin}m, stack_after ${n.stackAfterS}s, suspects [${v?.suspects.join(',') ?? ''}]: ${v?.text ?? 'no verdict'}`;
      failures.set(key, f);
    }
    return { scenario, from, to, bySize, all };
  });
  return {
    rows,
    failures: [...failures].map(([key, f]) => ({ key, ...f })).sort((a, b) => b.count - a.count),
  };
}

const pct = (x: number, of: number) => {
  const v = (100 * x) / Math.max(1, of);
  return Number.isInteger(v) ? `${v}` : v.toFixed(1);
};
const cellText = (c: Cell, healthy: boolean) =>
  healthy
    ? `${c.wrong}/${c.trials}`
    : `${pct(c.right, c.trials)}/${pct(c.wrong, c.trials)}/${pct(c.none, c.trials)}`;

/** Whether the issue's targets hold: ≥ 95 % right per culprit kind, no wrong node, no finding on a healthy run. */
export function targets(r: StackSimReport): { text: string; pass: boolean } {
  const main = r.rows.filter((x) => !x.scenario.extra);
  const culprits = main.filter((x) => 'culprit' in x.scenario.case);
  const low = culprits.filter((x) => x.all.right < 0.95 * x.all.trials).map((x) => x.scenario.name);
  const wrong = culprits.reduce((s, x) => s + x.all.wrong, 0);
  const findings = main.filter((x) => 'healthy' in x.scenario.case).reduce((s, x) => s + x.all.wrong, 0);
  const checks: [string, boolean][] = [
    [`right >= 95 % per culprit kind${low.length ? ` (below: ${low.join(', ')})` : ''}`, low.length === 0],
    [`wrong nodes named ${wrong} == 0`, wrong === 0],
    [`healthy runs with a stack finding ${findings} == 0`, findings === 0],
  ];
  return {
    text: `targets: ${checks.map(([t, ok]) => `${ok ? 'PASS' : 'MISS'} ${t}`).join('; ')}`,
    pass: checks.every(([, ok]) => ok),
  };
}

/** The table: right/wrong/none % per culprit and fleet size; nodes named / trials for healthy runs. */
export function stackSimTable(r: StackSimReport, label: string, why = 0): string {
  const head = `${''.padEnd(20)}${SIZES.map((n) => `${n} nodes`.padStart(13)).join('')}${'all'.padStart(15)}${'no stack yet'.padStart(14)}`;
  const lines = [
    `stacks, ${label}: per culprit right/wrong/none % of trials; per healthy run: runs with a node named / runs`,
    head,
  ];
  let group = '';
  for (const row of r.rows) {
    const s = row.scenario;
    const g = `${
      s.extra
        ? s.peers === 'sync'
          ? 'not in the targets: peers wait at a host sync, not in a collective (DDP backward, NCCL .item())'
          : 'not in the targets: a long evaluation without `phase` set'
        : "peers wait in a collective (the issue's definition)"
    }, seeds ${row.from}–${row.to}`;
    if (g !== group) lines.push(`-- ${g}`);
    group = g;
    const healthy = 'healthy' in s.case;
    lines.push(
      `${s.name.padEnd(20)}${SIZES.map((n) => cellText(row.bySize[n]!, healthy).padStart(13)).join('')}${cellText(row.all, healthy).padStart(15)}${`${pct(row.all.blind, row.all.trials)} %`.padStart(14)}`,
    );
  }
  lines.push(targets(r).text);
  if (why > 0 && r.failures.length) {
    lines.push(
      `failures by what shaped them (${r.failures.length} kinds; the ${Math.min(why, r.failures.length)} most frequent):`,
    );
    for (const f of r.failures.slice(0, why)) lines.push(`  ${f.count} × ${f.key}\n      e.g. ${f.example}`);
  }
  return lines.join('\n');
}

/** What the bench prints: the tuning seeds with their failures, then the held-out figures. */
export function stackSimReport(why = 12): string {
  const main = SCENARIOS.filter((s) => !s.extra);
  const extra = SCENARIOS.filter((s) => s.extra);
  const heldOut: StackSimReport = {
    rows: [...stackSim(...HELD_OUT, main).rows, ...stackSim(...HELD_OUT_EXTRA, extra).rows],
    failures: [],
  };
  return [
    stackSimTable(stackSim(...TUNING), 'tuning seeds (for looking at failures)', why),
    stackSimTable(heldOut, 'held out (the figures to quote)'),
  ].join('\n\n');
}

// `npx tsx bench/stackSim.ts [failure kinds to show, default 30]`
if (import.meta.url === `file://${process.argv[1]}`) {
  const t = performance.now();
  console.log(stackSimReport(Number(process.argv[2] ?? 30)), `\n(${Math.round(performance.now() - t)} ms)`);
}
