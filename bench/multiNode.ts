// The multi-node fleet of `npm run bench`: N runs × M nodes (protocol v1.1), each node writing
// nodes/{rank}.json. Measures what node files add to a sweep: S3 requests per node beyond the LIST share,
// DynamoDB writes for unchanged nodes, and a sweep's peak memory.
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { mapLimit } from '../lambdas/core/base/mapLimit.js';
import { DEFAULT_HEALTH_SETTINGS } from '../lambdas/core/health/index.js';
import { fleet, type Once, sweepOnce } from './fleet.js';
import { PRICES, SWEEPS_PER_MONTH } from './prices.js';
import { wruPerWrite } from './usage.js';

const STALL_MIN = 30;
const K = STALL_MIN / 2;

const runId = (i: number) => `mn-${String(i).padStart(5, '0')}`;

/** Every file of every run (rank 0's files and one per node), at step `step`. */
function files(runs: number, nodes: number, step: number): { Key: string; Body: string }[] {
  const now = new Date().toISOString();
  return Array.from({ length: runs }, (_, i) => {
    const id = runId(i);
    const out = [
      {
        Key: `${id}/metadata.json`,
        Body: JSON.stringify({ run_id: id, status: 'running', phase: 'training', nodes, last_update: now }),
      },
      { Key: `${id}/progress.json`, Body: JSON.stringify({ step, total_steps: 100_000, last_updated: now }) },
    ];
    for (let r = 0; r < nodes; r++)
      out.push({
        Key: `${id}/nodes/${r}.json`,
        Body: JSON.stringify({
          node_rank: r,
          nodes,
          instance_id: `i-${(i * nodes + r).toString(16).padStart(17, '0')}`,
          hostname: `ip-10-${(i >> 8) & 255}-${i & 255}-${r}`,
          last_updated: now,
          step,
          step_time_s: 1.4,
          gpus: Array.from({ length: 8 }, (_, index) => ({
            index,
            util: 97,
            mem_used_mib: 70123,
            mem_total_mib: 81559,
          })),
        }),
      });
    return out;
  }).flat();
}

async function put(s3: S3Client, bucket: string, prefix: string, objs: { Key: string; Body: string }[]) {
  await mapLimit(objs, 32, (o) =>
    s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/${o.Key}`, Body: o.Body })),
  );
}

/** Seeds the fleet, sweeps it cold, quiet, at a telemetry period and at a progress refresh; prints the figures. */
export async function benchMultiNode(endpoint: string, runs: number, nodes: number): Promise<void> {
  const name = `bench-mn-${Date.now() % 100000}`;
  const { env, app } = await fleet(endpoint, name, STALL_MIN);
  const t0 = performance.now();
  const seeded = files(runs, nodes, 100);
  await put(app.clients.s3, name, app.config.prefix, seeded);
  console.log(
    `== multi-node fleet: ${runs.toLocaleString()} runs × ${nodes} nodes (${seeded.length.toLocaleString()} objects seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s) ==`,
  );
  const once = (now: number): Promise<Once> => sweepOnce(env, now, 20 * 60_000);
  const now = Date.now();
  // The stack's telemetry period (TRAINWATCH_TELEMETRY_EVERY, 5 minutes by default), as the sweeps use it.
  const telemetryMin = (app.deps.health ?? DEFAULT_HEALTH_SETTINGS).telemetryEveryMs / 60_000;
  const cold = await once(now);
  // Training goes on: every node file, metadata and progress rewritten (new ETags) before each sweep.
  await put(app.clients.s3, name, app.config.prefix, files(runs, nodes, 160));
  const quiet = await once(now + 60_000);
  await put(app.clients.s3, name, app.config.prefix, files(runs, nodes, 220));
  const telemetry = await once(now + telemetryMin * 60_000 + 1000);
  await put(app.clients.s3, name, app.config.prefix, files(runs, nodes, 400));
  const refresh = await once(now + K * 60_000 + 1000);

  const n = runs * nodes;
  const c = (o: Once, k: string) => o.counts[k] ?? 0;
  const gets = (o: Once) => c(o, 'S3.GetObject');
  const lists = (o: Once) => c(o, 'S3.ListObjectsV2');
  const writes = (o: Once) => o.report.writes;
  // At 1 sweep a minute, stall 30m (health rules on): every K minutes, the sweeps at a telemetry period read
  // the node files (and a changed metadata.json), the last one also progress.json, the others no body (with
  // telemetry every 5m: 12 quiet, 2 telemetry, 1 refresh). With the health rules off
  // (TRAINWATCH_HEALTH_CHECKS=false) the telemetry sweeps read nothing either.
  const healthOn = gets(telemetry) > 0;
  const telemetrySweeps = healthOn ? Math.floor((K - 1) / telemetryMin) : 0;
  const quietSweeps = K - 1 - telemetrySweeps;
  const cycle = (f: (o: Once) => number) =>
    (quietSweeps * f(quiet) + telemetrySweeps * f(telemetry) + f(refresh)) / K;
  const steadyGets = cycle(gets);
  const steadyWrites = cycle(writes);
  const steadyLists = cycle(lists);
  const fmt = (v: number, d = 4) => v.toFixed(d);
  const row = (label: string, cells: string[]) =>
    console.log(`${label.padEnd(34)}${cells.map((x) => x.padStart(12)).join('')}`);
  console.log(`health rules: ${healthOn ? `on (telemetry every ${telemetryMin}m)` : 'off'}`);
  row('', ['cold', 'quiet', 'telemetry', 'refresh', 'steady*']);
  const all = [cold, quiet, telemetry, refresh];
  row('wall time (ms)', all.map((o) => fmt(o.report.durationMs, 0)).concat(['-']));
  row('S3 LIST / node', all.map((o) => fmt(lists(o) / n)).concat([fmt(steadyLists / n)]));
  row('S3 GET / node (beyond LIST)', all.map((o) => fmt(gets(o) / n)).concat([fmt(steadyGets / n)]));
  row('DynamoDB writes (runs)', all.map((o) => fmt(writes(o), 0)).concat([fmt(steadyWrites, 1)]));
  row('peak RSS (MB)', all.map((o) => fmt(o.maxRssMb, 0)).concat(['-']));
  console.log(
    `* 1 sweep/min, stall ${STALL_MIN}m: every ${K} min, ${quietSweeps} quiet sweeps, ${telemetrySweeps ? `${telemetrySweeps} telemetry sweeps ` : ''}and 1 refresh`,
  );
  // Every sweep's cost shared by the nodes: S3 requests, DynamoDB writes (measured item size) and the
  // Lambda's time (the emulator's wall time: an upper bound), at 1 sweep a minute.
  const wru = wruPerWrite(refresh);
  const lambdaSeconds = cycle((o) => o.report.durationMs) / 1000;
  const perNodeMonth =
    (SWEEPS_PER_MONTH / n) *
    ((steadyLists * PRICES.s3ListPer1k) / 1000 +
      (steadyGets * PRICES.s3GetPer1k) / 1000 +
      (steadyWrites * wru * PRICES.ddbWritePerMillionWru) / 1e6 +
      lambdaSeconds * 0.5 * PRICES.lambdaArmPerGbSecond +
      PRICES.lambdaPerMillionRequests / 1e6);
  const peak = Math.max(...all.map((o) => o.maxRssMb));
  const requests = (steadyLists + steadyGets) / n;
  const checks = [
    healthOn
      ? [`steady S3 requests/node/sweep ${fmt(requests)} <= 0.25`, requests <= 0.25]
      : [`steady S3 GET/node/sweep beyond LIST ${fmt(steadyGets / n)} <= 0.02`, steadyGets / n <= 0.02],
    [`cost/node-month $${fmt(perNodeMonth, 5)} <= $0.01`, perNodeMonth <= 0.01],
    [`no DynamoDB write for unchanged nodes (quiet sweep: ${writes(quiet)})`, writes(quiet) === 0],
    [`sweep peak RSS ${fmt(peak, 0)} MB < 512`, peak < 512],
  ] as const;
  console.log(
    `cost per node-month at 1-minute sweeps (S3, DynamoDB ${wru} WRU a write, Lambda): $${fmt(perNodeMonth, 5)}`,
  );
  console.log(`targets: ${checks.map(([t, ok]) => `${ok ? 'PASS' : 'MISS'} ${t}`).join('; ')}\n`);
}
