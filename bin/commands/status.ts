import { parseArgs } from 'node:util';
import { type EndedRun, listEnded } from '../../lambdas/adapters/stores/dynamoEndedLog.js';
import { etaMs } from '../../lambdas/core/alerting/alerts.js';
import { formatDuration } from '../../lambdas/core/base/duration.js';
import {
  describeThresholds,
  effectiveThresholds,
  type Thresholds,
} from '../../lambdas/core/detection/thresholds.js';
import {
  DEFAULT_HEALTH_SETTINGS,
  effectiveHealthSettings,
  formatRate,
  type HealthSettings,
  healthStatus,
  type RateUnit,
} from '../../lambdas/core/health/index.js';
import { runKey } from '../../lambdas/core/model/listing.js';
import type { RunRecord } from '../../lambdas/core/model/record.js';
import { currentAck } from '../../lambdas/core/oncall/index.js';
import { assertRunId } from '../../lambdas/core/protocol/runId.js';
import { progressFields } from '../../lambdas/core/render/fields.js';
import { createApp } from '../../lambdas/wiring/app.js';
import { type NodeRow, nodeRows, nodeTable } from './statusNodes.js';

/** The stable `status --json` row. */
export interface StatusRow {
  run_id: string;
  state: string;
  reason: string;
  error_type: string | null;
  attempt: number;
  step: number | null;
  total_steps: number | null;
  /** The learning rate progress.json last reported, else null. */
  learning_rate: number | null;
  updated_at: string;
  /** Who acknowledged the current state (until the next transition), else null. */
  acknowledged_by: string | null;
  /** The run's latest measured rate and its own baseline, in `rate_unit` per second (health rules). */
  rate: number | null;
  baseline: number | null;
  rate_unit: RateUnit | null;
  /** Mean GPU utilisation (%) over the nodes' last readings. */
  gpu_util: number | null;
  /** Active health findings by kind (throughput_drop, straggler, idle_gpus, data_bound), with their text. */
  health: Record<string, string>;
  /** When the run ended (left the sweep), else null. */
  ended_at: string | null;
  /** Where the run's files are now: its folder under the run prefix, or its ended folder. */
  files: string;
  /** Where the run lives: "EKS cluster/namespace/PyTorchJob name", or its instance id; null when unknown. */
  runs_on: string | null;
  /** The stall and stale thresholds in force for this run, and why (learned from its cadence, a phase, …). */
  thresholds: { stall_ms: number; learned_stall_ms: number | null; stale_ms: number; text: string };
}

/** Where a run's files are: `s3://bucket/{prefix}/{run_id}/` while live, its ended folder once it ended. */
export function filesOf(r: Pick<RunRecord, 'runId' | 'ended'>, bucket: string, prefix: string): string {
  return `s3://${bucket}/${r.ended ? r.ended.folder : runKey(prefix, r.runId)}`;
}

/** The node summaries' mean GPU utilisation, when any node reported one. */
function gpuUtil(r: RunRecord): number | null {
  const u = Object.values(r.facts.nodes ?? {})
    .map((n) => n.gpuUtil)
    .filter((v): v is number => v !== undefined);
  return u.length ? Math.round(u.reduce((a, b) => a + b, 0) / u.length) : null;
}

export function statusRow(
  r: RunRecord,
  now: number,
  health: HealthSettings,
  where: { bucket: string; prefix: string } = { bucket: '', prefix: '' },
  thresholds: Thresholds = { startupGraceMs: 0, phaseStaleAfterMs: {} },
): StatusRow {
  const h = healthStatus(r.facts.health, now, effectiveHealthSettings(health, r.meta?.health));
  const eff = effectiveThresholds(thresholds, r.meta, r.facts.cadence, r.attempt);
  return {
    run_id: r.runId,
    state: r.state,
    reason: r.reason,
    error_type: r.errorType ?? null,
    attempt: r.attempt,
    step: r.facts.step ?? null,
    total_steps: r.facts.totalSteps ?? null,
    learning_rate: r.facts.learningRate ?? null,
    updated_at: new Date(r.updatedAt).toISOString(),
    acknowledged_by: currentAck(r)?.by ?? null,
    rate: h.rate?.current ?? null,
    baseline: h.rate?.baseline ?? null,
    rate_unit: r.facts.health?.rate.unit ?? null,
    gpu_util: gpuUtil(r),
    health: Object.fromEntries(h.findings.map((f) => [f.kind, f.text])),
    ended_at: r.ended ? new Date(r.ended.at).toISOString() : null,
    files: filesOf(r, where.bucket, where.prefix),
    runs_on: r.meta?.where ?? r.meta?.instanceId ?? null,
    thresholds: {
      stall_ms: eff.stallAfterMs,
      learned_stall_ms: eff.stuckAfterMs ?? null,
      stale_ms: eff.staleAfterMs,
      text: describeThresholds(eff),
    },
  };
}

/** `23.1k tokens/s (base 48.2k)`, or `-` before a rate was measured. */
function rateText(r: StatusRow): string {
  if (r.rate === null || r.rate_unit === null) return '-';
  const base = r.baseline === null ? '' : ` (base ${formatRate(r.baseline)})`;
  return `${formatRate(r.rate)} ${r.rate_unit}/s${base}`;
}

/** Rows under a header, each column as wide as its widest cell (the last one left as it is). */
function columns(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  return [header, ...body]
    .map((cols) => cols.map((c, i) => (i < cols.length - 1 ? c.padEnd(widths[i]!) : c)).join('  '))
    .join('\n');
}

function table(rows: StatusRow[], now: number): string {
  const header = ['RUN', 'STATE', 'ATTEMPT', 'STEP', 'RATE', 'GPU', 'UPDATED', 'REASON'];
  const body = rows.map((r) => [
    r.run_id,
    r.state + (r.error_type ? ` (${r.error_type})` : ''),
    String(r.attempt),
    r.step === null ? '-' : `${r.step}${r.total_steps ? `/${r.total_steps}` : ''}`,
    rateText(r),
    r.gpu_util === null ? '-' : `${r.gpu_util}%`,
    `${formatDuration(now - Date.parse(r.updated_at))} ago`,
    r.acknowledged_by ? `${r.reason} [ack: ${r.acknowledged_by}]` : r.reason,
  ]);
  return columns(header, body);
}

/** The ended-runs log as `status --ended` prints it: newest first. */
function endedTable(rows: EndedRun[], now: number, bucket: string): string {
  const header = ['RUN', 'STATE', 'ATTEMPT', 'ENDED', 'FILES', 'REASON'];
  const body = rows.map((r) => [
    r.runId,
    r.state + (r.errorType ? ` (${r.errorType})` : ''),
    String(r.attempt),
    `${formatDuration(now - r.endedAt)} ago`,
    r.folder ? `s3://${bucket}/${r.folder}` : '-',
    r.reason,
  ]);
  return columns(header, body);
}

const USAGE = 'usage: trainwatch status [RUN_ID] [--json] | trainwatch status --ended [--limit N] [--json]';

/**
 * `trainwatch status`: the live runs (what the sweep watches); `status RUN_ID`: one run, live or ended,
 * with its history; `status --ended`: the runs that ended, newest first (`--limit`, default 20).
 */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { json: { type: 'boolean' }, ended: { type: 'boolean' }, limit: { type: 'string' } },
    allowPositionals: true,
  });
  const app = createApp(process.env);
  const now = Date.now();
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    console.error(
      `trainwatch status: --limit ${values.limit} must be a whole number from 1 to 1000\n${USAGE}`,
    );
    return 2;
  }
  if (values.ended) {
    if (positionals.length) {
      console.error(
        `trainwatch status: --ended lists ended runs; give no RUN_ID (status RUN_ID finds an ended run too)\n${USAGE}`,
      );
      return 2;
    }
    const months = app.config.runRetentionDays > 0 ? Math.ceil(app.config.runRetentionDays / 28) + 1 : 24;
    const ended = await listEnded(app.clients.ddb, app.config.table, limit, now, months);
    if (values.json) console.log(JSON.stringify(ended, null, 2));
    else console.log(ended.length ? endedTable(ended, now, app.config.bucket) : 'no ended runs');
    return 0;
  }
  const runId = positionals[0] === undefined ? undefined : assertRunId(positionals[0]);
  let records: RunRecord[];
  if (runId) {
    const r = await app.states.get(runId);
    if (!r) {
      console.error(`trainwatch status: no run ${runId} in table ${app.config.table}`);
      return 1;
    }
    records = [r];
  } else {
    records = [...(await app.states.loadLive()).values()].sort((a, b) => a.runId.localeCompare(b.runId));
  }
  const where = { bucket: app.config.bucket, prefix: app.config.prefix };
  const rows: (StatusRow & { nodes?: NodeRow[] })[] = records.map((r) =>
    statusRow(r, now, app.deps.health ?? DEFAULT_HEALTH_SETTINGS, where, app.config.thresholds),
  );
  // One run asked for by id: its nodes too, fresh from a LIST (the sweep keeps no per-beat state).
  const nodes =
    runId && !records[0]!.ended && (records[0]!.facts.nodes || records[0]!.meta?.nodes)
      ? nodeRows(records[0]!, (await app.runs.listRun(runId))?.nodes ?? [], now, rows[0]!.thresholds.stale_ms)
      : undefined;
  if (nodes) rows[0] = { ...rows[0]!, nodes };
  if (values.json) {
    console.log(JSON.stringify(rows, null, 2));
    return 0;
  }
  console.log(
    rows.length
      ? table(rows, now)
      : `no live runs in table ${app.config.table} (status --ended lists those that ended)`,
  );
  if (runId && rows[0]!.runs_on) console.log(`\nruns on: ${rows[0]!.runs_on}`);
  if (runId) console.log(`\nthresholds: ${rows[0]!.thresholds.text}`);
  if (runId) {
    // What the run reported, as its alerts show it (step, loss, learning rate: where present).
    const { state, facts } = records[0]!;
    const shown = progressFields({ ...facts, etaMs: state === 'RUNNING' ? etaMs(facts) : undefined });
    if (shown.length) console.log(`\n${shown.map((f) => `${f.label.toLowerCase()}: ${f.value}`).join('\n')}`);
  }
  if (runId)
    console.log(
      `\nfiles: ${rows[0]!.files}${records[0]!.ended ? ` (ended ${formatDuration(now - records[0]!.ended.at)} ago)` : ''}`,
    );
  if (nodes)
    console.log(
      `\nnodes (${nodes.filter((n) => !n.stale).length} of ${nodes.length} beating):\n${nodeTable(nodes, now)}`,
    );
  if (runId) {
    console.log('\nhistory (newest first):');
    for (const f of await app.states.history(runId, 20))
      console.log(`  ${new Date(f.at).toISOString()}  ${f.from ?? '(new)'} -> ${f.to}  ${f.reason}`);
    for (const u of records[0]!.undelivered ?? [])
      console.log(`  undelivered on ${u.channel}: ${u.alertId}: ${u.error}`);
  }
  return 0;
}
