// The aged fleet of `npm run bench` (issue 24): the same live runs measured fresh (nothing else kept)
// and aged (20,000 runs that ended beside them: their files under the ended prefix, their items,
// history and ended-log lines in the table), side by side; the one-time cost of an ending; a model
// for 100,000 ended runs, before (LIST the whole prefix, Scan the whole table) and now.
import { ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { endedKey, flipSortKey, pk } from '../lambdas/adapters/stores/dynamoStateStore.js';
import { mapLimit } from '../lambdas/core/base/mapLimit.js';
import type { Flip, RunRecord } from '../lambdas/core/model/record.js';
import { splitPoints } from '../lambdas/core/pipeline/index.js';
import { fleet, type Once, sweepOnce } from './fleet.js';
import { PRICES, perRunMonth, SWEEPS_PER_MONTH, sweepCost } from './prices.js';
import { advanceHealthy, seed } from './seed.js';
import { count, steadyUsage, sweepUsage, wruPerWrite } from './usage.js';

const STALL_MIN = 30;
const K = STALL_MIN / 2;
const MEMORY_GB = 0.5;
const ENDED_PREFIX = 'trainwatch-ended';
/** Files an ended single-node run keeps (metadata, progress, its sentinel); a multi-node one adds 4 node files. */
const ENDED_FILES = 3;
const ENDED_NODES = 4;
/** A conservative S3 LIST latency for a full 1,000-key page (an assumption, stated; moto's is measured). */
const S3_PAGE_MS = 200;

const endedId = (i: number) => `ended-${String(i).padStart(6, '0')}`;
const multiNode = (i: number) => i % 10 === 0;

/** The files of ended runs, under the ended prefix, as the sweep's moves leave them. */
async function seedEndedFiles(s3: S3Client, bucket: string, n: number): Promise<number> {
  const now = new Date().toISOString();
  const puts: { Key: string; Body: string }[] = [];
  for (let i = 0; i < n; i++) {
    const folder = `${ENDED_PREFIX}/${endedId(i)}/2026-08-01T120000.000Z/`;
    puts.push(
      {
        Key: `${folder}metadata.json`,
        Body: JSON.stringify({ run_id: endedId(i), status: 'completed', last_update: now }),
      },
      {
        Key: `${folder}progress.json`,
        Body: JSON.stringify({ step: 100_000, total_steps: 100_000, last_updated: now }),
      },
      i % 5 === 0
        ? {
            Key: `${folder}_error`,
            Body: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
          }
        : { Key: `${folder}_complete`, Body: '{"step":100000}' },
    );
    if (multiNode(i))
      for (let r = 0; r < ENDED_NODES; r++)
        puts.push({
          Key: `${folder}nodes/${r}.json`,
          Body: JSON.stringify({ node_rank: r, nodes: ENDED_NODES, step: 100_000 }),
        });
  }
  await mapLimit(puts, 32, (p) =>
    s3.send(new PutObjectCommand({ Bucket: bucket, Key: p.Key, Body: p.Body })),
  );
  return puts.length;
}

/** An ended run's record, as big as a real one (metadata, progress, node summaries for multi-node runs). */
function endedRecord(i: number, at: number): RunRecord {
  const failed = i % 5 === 0;
  return {
    runId: endedId(i),
    state: failed ? 'FAILED' : 'SUCCEEDED',
    reason: failed
      ? 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'
      : '_complete written 1h ago',
    errorType: failed ? 'oom' : null,
    attempt: 1,
    version: 6,
    since: at - 3_600_000,
    updatedAt: at,
    firstSeenAt: at - 86_400_000,
    meta: {
      phase: 'training',
      status: 'completed',
      instanceId: 'i-0123456789abcdef0',
      jobName: `sweep-${i % 50}`,
    },
    facts: {
      etags: {
        metadata: '"0123456789abcdef0123456789abcdef"',
        progress: '"0123456789abcdef0123456789abcdef"',
      },
      step: 100_000,
      totalSteps: 100_000,
      loss: 1.2345,
      stepAdvancedAt: at - 3_700_000,
      progressCheckedAt: at - 3_700_000,
      firstStep: 0,
      firstStepAt: at - 86_400_000,
      ...(multiNode(i)
        ? {
            nodes: Object.fromEntries(
              Array.from({ length: ENDED_NODES }, (_, r) => [
                r,
                {
                  instanceId: `i-0${r}23456789abcdef0`,
                  hostname: `ip-10-0-${r}-1`,
                  step: 100_000,
                  gpuUtil: 97,
                },
              ]),
            ) as never,
          }
        : {}),
    },
    ended: { at, folder: `${ENDED_PREFIX}/${endedId(i)}/2026-08-01T120000.000Z/`, files: ENDED_FILES },
  };
}

/** Ended items, three history entries each, and the ended-log line, as `StateStore.end` leaves them. */
async function seedEndedItems(
  ddb: DynamoDBDocumentClient,
  table: string,
  n: number,
  at: number,
): Promise<number> {
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const r = endedRecord(i, at);
    items.push({ ...endedKey(r.runId), ...r, locks: {} });
    const flips: Flip[] = [
      {
        runId: r.runId,
        to: 'RUNNING',
        reason: 'heartbeats fresh',
        at: at - 86_400_000,
        attempt: 1,
        version: 1,
      },
      {
        runId: r.runId,
        from: 'RUNNING',
        to: r.state,
        reason: r.reason,
        at: at - 3_600_000,
        attempt: 1,
        version: 5,
      },
      {
        runId: r.runId,
        from: r.state,
        to: r.state,
        reason: `ended: 3 file(s) moved to ${r.ended!.folder}`,
        at,
        attempt: 1,
        version: 6,
      },
    ];
    for (const f of flips) items.push({ pk: pk(f.runId), sk: flipSortKey(f), ...f });
    const iso = new Date(at).toISOString();
    items.push({
      pk: `ENDED#${iso.slice(0, 7)}`,
      sk: `${iso}#${r.runId}`,
      runId: r.runId,
      state: r.state,
      reason: r.reason,
      attempt: 1,
      endedAt: at,
      folder: r.ended!.folder,
    });
  }
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, b) =>
    items.slice(b * 25, b * 25 + 25),
  );
  await mapLimit(batches, 8, async (batch) => {
    let pending: Record<string, unknown>[] = batch.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length) {
      const res = await ddb.send(new BatchWriteCommand({ RequestItems: { [table]: pending as never } }));
      pending = (res.UnprocessedItems?.[table] ?? []) as Record<string, unknown>[];
    }
  });
  return items.length;
}

/** Bytes of what an ended run keeps in the table (record and history), averaged over the seeded mix. */
function endedItemBytes(n: number): number {
  let bytes = 0;
  const at = Date.now();
  for (let i = 0; i < Math.min(n, 100); i++) {
    const r = endedRecord(i, at);
    bytes += Buffer.byteLength(JSON.stringify({ ...endedKey(r.runId), ...r }));
    bytes +=
      3 *
      Buffer.byteLength(
        JSON.stringify({
          pk: pk(r.runId),
          sk: 'FLIP#2026-08-01T12:00:00.000Z#00000005',
          runId: r.runId,
          from: 'RUNNING',
          to: r.state,
          reason: r.reason,
          at,
          attempt: 1,
          version: 5,
        }),
      );
  }
  return Math.round(bytes / Math.min(n, 100));
}

/** One measured fleet: its environment and app on the emulator (its own table, a bucket and a prefix). */
const liveFleet = (endpoint: string, bucket: string, name: string, prefix: string) =>
  fleet(endpoint, name, STALL_MIN, { bucket, prefix });

interface Figures {
  s3PerRun: number;
  listPages: number;
  ranges: number;
  rruPerRun: number;
  wruPerRun: number;
  warmMs: number;
  refreshMs: number;
  rssMb: number;
  costPerRunMonth: number;
}

/** Steady state (14 warm sweeps + 1 refresh per 15 minutes) from one warm and one refresh sweep. */
function figures(warm: Once, refresh: Once, n: number, ranges: number): Figures {
  const wru = wruPerWrite(refresh);
  const steady = steadyUsage(sweepUsage(warm, wru, MEMORY_GB), sweepUsage(refresh, wru, MEMORY_GB), K);
  return {
    s3PerRun: (steady.s3List + steady.s3Get) / n,
    listPages: count(warm, 'S3.ListObjectsV2'),
    ranges,
    rruPerRun: steady.ddbRru / n,
    wruPerRun: steady.ddbWru / n,
    warmMs: warm.report.durationMs,
    refreshMs: refresh.report.durationMs,
    rssMb: Math.max(warm.maxRssMb, refresh.maxRssMb),
    costPerRunMonth: perRunMonth(sweepCost(steady), n),
  };
}

/** A LIST of one full page on the emulator, median of 5: the per-page latency the wall times include. */
async function pageMs(s3: S3Client, bucket: string, prefix: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/` }));
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[2]!;
}

/** The one-time cost of ending: runs that SUCCEEDED (5 files: metadata, progress, log, a node file, _complete). */
async function endingCost(endpoint: string, bucket: string, n: number) {
  const { env, app } = await liveFleet(endpoint, bucket, `${bucket}-ending`, 'ending');
  const now = Date.now();
  const files = [
    'metadata.json',
    'progress.json',
    'logs/training_log_latest.txt',
    'nodes/0.json',
    '_complete',
  ];
  await mapLimit(
    Array.from({ length: n }, (_, i) => files.map((f) => `ending/end-${i}/${f}`)).flat(),
    32,
    (Key) => app.clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body: '{"step": 10}' })),
  );
  await sweepOnce(env, now, 20 * 60_000);
  const before = await sweepOnce(env, now + 30 * 60_000, 20 * 60_000); // within the grace: a quiet sweep
  const ending = await sweepOnce(env, now + 61 * 60_000, 20 * 60_000);
  const extra = (k: string) => (count(ending, k) - count(before, k)) / n;
  const per = {
    list: extra('S3.ListObjectsV2'),
    copy: count(ending, 'S3.CopyObject') / n,
    del: count(ending, 'S3.DeleteObject') / n,
    transact: count(ending, 'DynamoDB.TransactWriteItems') / n,
    put: extra('DynamoDB.PutItem'),
  };
  // A transaction bills 2 WRU per item of up to 1 KB: the live item's delete, the ended item, the log line.
  const wru = per.transact * 3 * 2 + per.put;
  const dollars =
    ((per.list + per.copy) / 1000) * PRICES.s3ListPer1k + (wru / 1e6) * PRICES.ddbWritePerMillionWru;
  return { ended: ending.report as unknown as { ended: number }, per, wru, dollars };
}

/**
 * The figures of issue 24. For each size, two fleets of the same live runs on the same emulator: fresh
 * (its own bucket and table, nothing else kept) and aged (a bucket and table that also hold the ended
 * runs). Their sweeps alternate (warm, warm, refresh, refresh), so the emulator's own slowdown with what it
 * holds weighs on both alike.
 */
export async function benchAged(
  endpoint: string,
  sizes: readonly number[],
  endedRuns: number,
): Promise<void> {
  const stamp = Date.now() % 100000;
  const [freshBucket, agedBucket] = [`bench-fresh-${stamp}`, `bench-aged-${stamp}`];
  const results: { n: number; fresh: Figures; aged: Figures; pageMs: number }[] = [];
  let endedObjects = 0;
  for (const [i, n] of sizes.entries()) {
    const prefix = `fleet-${n}`;
    const t0 = performance.now();
    const fleets = [
      await liveFleet(endpoint, freshBucket, `${freshBucket}-${n}`, prefix),
      await liveFleet(endpoint, agedBucket, `${agedBucket}-${n}`, prefix),
    ];
    const now = Date.now();
    for (const { app } of fleets) await seed(app.clients.s3, app.config.bucket, prefix, n);
    for (const { env } of fleets) await sweepOnce(env, now, 30 * 60_000); // every run seen once (cold)
    const aged = fleets[1]!.app;
    const t1 = performance.now();
    if (i === 0) endedObjects = await seedEndedFiles(aged.clients.s3, agedBucket, endedRuns);
    const items = await seedEndedItems(aged.clients.ddb, aged.config.table, endedRuns, now - 30 * 86_400_000);
    console.log(
      `   ${n.toLocaleString()} live runs, twice, seeded and swept in ${((t1 - t0) / 1000).toFixed(0)} s; ${endedRuns.toLocaleString()} ended runs (${endedObjects.toLocaleString()} objects, ${items.toLocaleString()} items) beside one of them, added in ${((performance.now() - t1) / 1000).toFixed(0)} s`,
    );
    const ranges = splitPoints((await aged.states.loadLive()).values()).length + 1;
    const warm = [];
    for (const { env } of fleets) warm.push(await sweepOnce(env, now + 60_000, 30 * 60_000));
    for (const { app } of fleets) await advanceHealthy(app.clients.s3, app.config.bucket, prefix, n);
    const refresh = [];
    for (const { env } of fleets) refresh.push(await sweepOnce(env, now + K * 60_000 + 1000, 30 * 60_000));
    results.push({
      n,
      fresh: figures(warm[0]!, refresh[0]!, n, ranges),
      aged: figures(warm[1]!, refresh[1]!, n, ranges),
      pageMs: await pageMs(aged.clients.s3, agedBucket, prefix),
    });
  }

  const cols = results.flatMap((r) => [`fresh ${r.n / 1000}k`, `aged ${r.n / 1000}k`]);
  const row = (label: string, f: (x: Figures) => string) =>
    console.log(
      `${label.padEnd(34)}${results
        .flatMap((r) => [f(r.fresh), f(r.aged)])
        .map((c) => c.padStart(12))
        .join('')}`,
    );
  console.log(
    `== aged fleets: live runs beside ${endedRuns.toLocaleString()} ended (every 10th multi-node, 3 history entries each) ==`,
  );
  console.log(`${''.padEnd(34)}${cols.map((c) => c.padStart(12)).join('')}`);
  row('S3 requests / live run / sweep*', (x) => x.s3PerRun.toFixed(4));
  row('LIST pages / sweep (ranges)', (x) => `${x.listPages} (${x.ranges})`);
  row('DynamoDB RRU / live run / sweep*', (x) => x.rruPerRun.toFixed(4));
  row('DynamoDB WRU / live run / sweep*', (x) => x.wruPerRun.toFixed(4));
  row('warm sweep wall (ms, emulator)', (x) => String(x.warmMs));
  row('refresh sweep wall (ms, emulator)', (x) => String(x.refreshMs));
  row('peak RSS (MB)', (x) => x.rssMb.toFixed(0));
  row('cost / live run-month ($)', (x) => x.costPerRunMonth.toFixed(5));
  console.log(
    `* steady state at 1 sweep/min, stall ${STALL_MIN}m: ${K - 1} warm sweeps + 1 refresh sweep every ${K} min`,
  );
  const within = (a: number, b: number, pct: number) => a <= b * (1 + pct / 100) + 1e-12;
  const checks = results.flatMap(
    ({ n, fresh, aged }) =>
      [
        [
          `${n / 1000}k S3 req/run ${aged.s3PerRun.toFixed(4)} within 10% of ${fresh.s3PerRun.toFixed(4)}`,
          within(aged.s3PerRun, fresh.s3PerRun, 10),
        ],
        [
          `${n / 1000}k RRU/run ${aged.rruPerRun.toFixed(4)} within 10% of ${fresh.rruPerRun.toFixed(4)}`,
          within(aged.rruPerRun, fresh.rruPerRun, 10),
        ],
        [
          `${n / 1000}k cost $${aged.costPerRunMonth.toFixed(5)} within 10% of $${fresh.costPerRunMonth.toFixed(5)}`,
          within(aged.costPerRunMonth, fresh.costPerRunMonth, 10),
        ],
        [`${n / 1000}k peak RSS ${aged.rssMb.toFixed(0)} MB <= 512`, aged.rssMb <= 512],
        [
          `${n / 1000}k warm wall ${aged.warmMs} ms <= 1.2x ${fresh.warmMs}`,
          aged.warmMs <= 1.2 * fresh.warmMs,
        ],
        [
          `${n / 1000}k refresh wall ${aged.refreshMs} ms <= 1.2x ${fresh.refreshMs}`,
          aged.refreshMs <= 1.2 * fresh.refreshMs,
        ],
      ] as const,
  );
  console.log(`targets: ${checks.map(([t, ok]) => `${ok ? 'PASS' : 'MISS'} ${t}`).join('; ')}`);

  for (const { n, aged, pageMs: ms } of results) {
    const inARow = Math.ceil(aged.listPages / aged.ranges);
    console.log(
      `LIST at ${n.toLocaleString()} live: ${aged.listPages} pages in ${aged.ranges} parallel range(s), at most ~${inARow} in a row; emulator ${ms.toFixed(0)} ms/page -> ~${((inARow * ms) / 1000).toFixed(1)} s; on S3 at an assumed ${S3_PAGE_MS} ms/page -> ~${((inARow * S3_PAGE_MS) / 1000).toFixed(1)} s of the sweep's minute`,
    );
  }

  const e = await endingCost(endpoint, freshBucket, 200);
  console.log(
    `one-time cost of an ending (200 runs of 5 files, ${e.ended.ended} ended in one sweep): per run ${e.per.list.toFixed(2)} LIST + ${e.per.copy.toFixed(2)} COPY + ${e.per.del.toFixed(2)} DELETE (free), ${e.per.transact.toFixed(2)} DynamoDB transaction (3 items) + ${e.per.put.toFixed(2)} history put = ~${e.wru.toFixed(1)} WRU -> $${e.dollars.toFixed(7)} per run; the copies also store the files twice until the versioned bucket's noncurrent versions expire (1 day)`,
  );

  // The model: per sweep, what a LIST of the whole prefix and a Scan of the whole table read before,
  // against what the sweep reads now (which does not depend on how many ended runs are kept).
  const [first] = results;
  if (!first) return;
  // Before, an ended run kept its files under the run prefix and its record and history in the Scan.
  const endedKeysPerRun = ENDED_FILES + ENDED_NODES / 10;
  const endedBytes = endedItemBytes(endedRuns);
  console.log(
    `model, per live run-month at 1 sweep/min, for ${first.n.toLocaleString()} live runs beside E ended runs (an ended run: ${endedKeysPerRun.toFixed(1)} files, ${endedBytes} bytes of record and history, as seeded):`,
  );
  for (const E of [0, 20_000, 100_000]) {
    const pages = Math.ceil((E * endedKeysPerRun) / 1000);
    const rru = (E * endedBytes) / 4096 / 2;
    const extra =
      (((pages / 1000) * PRICES.s3ListPer1k + (rru / 1e6) * PRICES.ddbReadPerMillionRru) * SWEEPS_PER_MONTH) /
      first.n;
    console.log(
      `  E = ${E.toLocaleString().padStart(7)}: before, every sweep: +${pages} LIST pages one after another and a Scan of +${((E * endedBytes) / 1e6).toFixed(1)} MB: +$${extra.toFixed(4)} per live run-month; now: +0 (the sweep reads no ended run; measured at E = ${endedRuns.toLocaleString()} above)`,
    );
  }
  console.log('');
}
