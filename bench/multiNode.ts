// The multi-node fleet of `npm run bench`: N runs × M nodes (protocol v1.1), each node writing
// nodes/{rank}.json. Measures what node files add to a sweep: S3 requests per node beyond the LIST share,
// DynamoDB writes for unchanged nodes, and a sweep's peak memory.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createApp } from '../lambdas/app.js';
import { mapLimit } from '../lambdas/core/mapLimit.js';
import { awsClients } from '../local/awsClients.js';
import { setupLocal } from '../local/setup.js';
import { PRICES, SWEEPS_PER_MONTH } from './prices.js';

const STALL_MIN = 30;
const K = STALL_MIN / 2;

type Once = {
  report: { runs: number; durationMs: number; writes: number; transitions: unknown[] };
  counts: Record<string, number>;
  maxRssMb: number;
};

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

/** Seeds the fleet, sweeps cold / warm / after every file was rewritten, and prints the figures. */
export async function benchMultiNode(endpoint: string, runs: number, nodes: number): Promise<void> {
  const name = `bench-mn-${Date.now() % 100000}`;
  const env = {
    ...process.env,
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    TRAINWATCH_BUCKET: name,
    TRAINWATCH_TABLE: name,
    TRAINWATCH_STALE_AFTER: '2h',
    TRAINWATCH_STARTUP_GRACE: '2h',
    TRAINWATCH_STALL_AFTER: `${STALL_MIN}m`,
  };
  const app = createApp(env, awsClients({ region: 'us-east-1', endpoint }));
  await setupLocal(app.config, app.clients);
  const t0 = performance.now();
  const seeded = files(runs, nodes, 100);
  await put(app.clients.s3, name, app.config.prefix, seeded);
  console.log(
    `== multi-node fleet: ${runs.toLocaleString()} runs × ${nodes} nodes (${seeded.length.toLocaleString()} objects seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s) ==`,
  );
  const once = async (now: number): Promise<Once> => {
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'bench/sweepOnce.ts', String(now)], {
      env,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      timeout: 20 * 60_000,
    });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  };
  const now = Date.now();
  const cold = await once(now);
  // Training goes on: every node file, metadata and progress rewritten (new ETags), as after a minute.
  await put(app.clients.s3, name, app.config.prefix, files(runs, nodes, 160));
  const beaten = await once(now + 60_000);
  const warm = await once(now + 2 * 60_000);
  const refresh = await once(now + K * 60_000 + 1000);

  const n = runs * nodes;
  const c = (o: Once, k: string) => o.counts[k] ?? 0;
  const gets = (o: Once) => c(o, 'S3.GetObject');
  const lists = (o: Once) => c(o, 'S3.ListObjectsV2');
  const writes = (o: Once) => o.report.writes;
  // At 1 sweep a minute with stall 30m: K-1 sweeps where nodes beat but nothing needs a body, one refresh.
  const steadyGets = ((K - 1) * gets(beaten) + gets(refresh)) / K;
  const steadyWrites = ((K - 1) * writes(beaten) + writes(refresh)) / K;
  const steadyLists = ((K - 1) * lists(beaten) + lists(refresh)) / K;
  const fmt = (v: number, d = 4) => v.toFixed(d);
  const row = (label: string, cells: string[]) =>
    console.log(`${label.padEnd(34)}${cells.map((x) => x.padStart(12)).join('')}`);
  row('', ['cold', 'beaten', 'warm', 'refresh', 'steady*']);
  row('wall time (ms)', [cold, beaten, warm, refresh].map((o) => fmt(o.report.durationMs, 0)).concat(['-']));
  row(
    'S3 LIST / node',
    [cold, beaten, warm, refresh].map((o) => fmt(lists(o) / n)).concat([fmt(steadyLists / n)]),
  );
  row(
    'S3 GET / node (beyond LIST)',
    [cold, beaten, warm, refresh].map((o) => fmt(gets(o) / n)).concat([fmt(steadyGets / n)]),
  );
  row(
    'DynamoDB writes (runs)',
    [cold, beaten, warm, refresh].map((o) => fmt(writes(o), 0)).concat([fmt(steadyWrites, 1)]),
  );
  row('peak RSS (MB)', [cold, beaten, warm, refresh].map((o) => fmt(o.maxRssMb, 0)).concat(['-']));
  console.log(
    `* ${K - 1} sweeps in which every node beat + 1 progress refresh every ${K} min (1 sweep/min, stall ${STALL_MIN}m)`,
  );
  const perNodeMonth =
    (((steadyLists / n) * PRICES.s3ListPer1k) / 1000) * SWEEPS_PER_MONTH +
    (((steadyGets / n) * PRICES.s3GetPer1k) / 1000) * SWEEPS_PER_MONTH;
  const peak = Math.max(cold.maxRssMb, beaten.maxRssMb, warm.maxRssMb, refresh.maxRssMb);
  const checks = [
    [`steady S3 GET/node/sweep beyond LIST ${fmt(steadyGets / n)} <= 0.02`, steadyGets / n <= 0.02],
    [`no DynamoDB write for unchanged nodes (warm sweep: ${writes(warm)})`, writes(warm) === 0],
    [`sweep peak RSS ${fmt(peak, 0)} MB < 512`, peak < 512],
  ] as const;
  console.log(`S3 cost per node-month at 1-minute sweeps: $${fmt(perNodeMonth, 5)}`);
  console.log(`targets: ${checks.map(([t, ok]) => `${ok ? 'PASS' : 'MISS'} ${t}`).join('; ')}\n`);
}
