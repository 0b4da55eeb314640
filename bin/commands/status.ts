import { parseArgs } from 'node:util';
import { createApp } from '../../lambdas/app.js';
import { formatDuration } from '../../lambdas/core/duration.js';
import { currentAck } from '../../lambdas/core/oncall/index.js';
import { assertRunId } from '../../lambdas/core/protocol/runId.js';
import type { RunRecord } from '../../lambdas/core/record.js';
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
  updated_at: string;
  /** Who acknowledged the current state (until the next transition), else null. */
  acknowledged_by: string | null;
}

export function statusRow(r: RunRecord): StatusRow {
  return {
    run_id: r.runId,
    state: r.state,
    reason: r.reason,
    error_type: r.errorType ?? null,
    attempt: r.attempt,
    step: r.step ?? null,
    total_steps: r.totalSteps ?? null,
    updated_at: new Date(r.updatedAt).toISOString(),
    acknowledged_by: currentAck(r)?.by ?? null,
  };
}

function table(rows: StatusRow[], now: number): string {
  const header = ['RUN', 'STATE', 'ATTEMPT', 'STEP', 'UPDATED', 'REASON'];
  const body = rows.map((r) => [
    r.run_id,
    r.state + (r.error_type ? ` (${r.error_type})` : ''),
    String(r.attempt),
    r.step === null ? '-' : `${r.step}${r.total_steps ? `/${r.total_steps}` : ''}`,
    `${formatDuration(now - Date.parse(r.updated_at))} ago`,
    r.acknowledged_by ? `${r.reason} [ack: ${r.acknowledged_by}]` : r.reason,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  return [header, ...body]
    .map((cols) => cols.map((c, i) => (i < cols.length - 1 ? c.padEnd(widths[i]!) : c)).join('  '))
    .join('\n');
}

/** `trainwatch status [RUN_ID] [--json]`: the runs' states from DynamoDB. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { json: { type: 'boolean' } },
    allowPositionals: true,
  });
  const app = createApp(process.env);
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
    records = [...(await app.states.loadAll()).values()].sort((a, b) => a.runId.localeCompare(b.runId));
  }
  const rows: (StatusRow & { nodes?: NodeRow[] })[] = records.map(statusRow);
  const now = Date.now();
  // One run asked for by id: its nodes too, fresh from a LIST (the sweep keeps no per-beat state).
  const nodes =
    runId && (records[0]!.nodes || records[0]!.meta?.nodes)
      ? nodeRows(
          records[0]!,
          (await app.runs.listRun(runId))?.nodes ?? [],
          now,
          app.config.thresholds.staleAfterMs,
        )
      : undefined;
  if (nodes) rows[0] = { ...rows[0]!, nodes };
  if (values.json) {
    console.log(JSON.stringify(rows, null, 2));
    return 0;
  }
  console.log(rows.length ? table(rows, now) : `no runs in table ${app.config.table}`);
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
