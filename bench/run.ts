// `npm run bench [-- --runs 1000,10000]`: sweep cost and speed against the emulator, side by side
// with a naive poll loop measured in the same run; sentinel latency; bundle sizes and load times.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { awsClients } from '../local/awsClients.js';
import { startEmulator } from '../local/emulator.js';
import { benchAged } from './aged.js';
import { SENTINEL_MEDIAN_BEFORE_MS, TARGETS } from './before.js';
import { detectSimReport } from './detectSim.js';
import { fleet, type Once, sweepOnce } from './fleet.js';
import { healthSim, healthSimLine } from './healthSim.js';
import { benchMultiNode } from './multiNode.js';
import { naiveSweep } from './naive.js';
import { PRICES, perRunMonth, SWEEPS_PER_MONTH, sweepCost } from './prices.js';
import { advanceHealthy, MIX, seed } from './seed.js';
import { sentinelLatency } from './sentinelLatency.js';
import { stackSimReport } from './stackSim.js';
import { steadyUsage, sweepUsage, wruPerWrite } from './usage.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000,10000' },
    nodes: { type: 'string', default: '1000x8' },
    // live fleet sizes x ended runs beside them (issue 24), e.g. `--aged 1000,10000x20000`
    aged: { type: 'string', default: '1000,10000x20000' },
    // e.g. `--only sentinel,bundles`: the cold-start figures without the sweeps' minutes of seeding.
    only: { type: 'string', default: 'sweep,aged,nodes,health,stacks,detect,sentinel,bundles' },
    'skip-bundles': { type: 'boolean' },
  },
});
const parts = new Set(values.only!.split(','));
const sizes = parts.has('sweep') ? values.runs!.split(',').map(Number) : [];
const MEMORY_GB = 0.5;
const STALL_MIN = 30;
const K = STALL_MIN / 2;
const SWEEP_TIMEOUT_MS = 20 * 60_000; // a healthy run's progress.json is read at most once per half stall threshold

// The simulations (health, stacks, detect) and the bundles need no emulator: `--only detect` starts none.
const emulated = ['sweep', 'aged', 'nodes', 'sentinel'].some((p) => parts.has(p));
const emulator = emulated ? await startEmulator() : undefined;
process.env.AWS_ACCESS_KEY_ID ??= 'bench';
process.env.AWS_SECRET_ACCESS_KEY ??= 'bench';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const fmt = (n: number, d = 3) => (Number.isInteger(n) && d === 0 ? String(n) : n.toFixed(d));
const row = (label: string, cells: string[]) =>
  console.log(`${label.padEnd(30)}${cells.map((c) => c.padStart(14)).join('')}`);

try {
  if (emulator) {
    console.log(
      `trainwatch bench: moto server ${emulator.endpoint}; one sweep = one Lambda invocation (fresh process, ${MEMORY_GB * 1024} MB budget)`,
    );
    console.log(`fleet mix: ${MIX.map((m) => `${m.share * 100}% ${m.kind}`).join(', ')}\n`);
  }
  for (const n of sizes) {
    if (!emulator) break; // sizes come with `sweep`, which starts the emulator
    const name = `bench-${n}-${Date.now() % 100000}`;
    const { env, app } = await fleet(emulator.endpoint, name, STALL_MIN);
    const t0 = performance.now();
    const objects = await seed(app.clients.s3, name, app.config.prefix, n);
    console.log(
      `== ${n.toLocaleString()} runs (${objects.toLocaleString()} objects seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s) ==`,
    );
    const once = async (now: number): Promise<Once> => {
      try {
        return await sweepOnce(env, now, SWEEP_TIMEOUT_MS);
      } catch (e) {
        // moto server has deadlocked under concurrent requests here once: show where, then stop.
        emulator.dumpThreads();
        setTimeout(
          () =>
            console.error(
              `sweep failed or took over ${SWEEP_TIMEOUT_MS / 60_000} min; emulator threads:\n${emulator.dumpThreads()}`,
            ),
          1000,
        );
        throw e;
      }
    };
    const now = Date.now();
    const cold = await once(now);
    const warm = await once(now + 60_000);
    await advanceHealthy(app.clients.s3, name, app.config.prefix, n);
    const refresh = await once(now + K * 60_000 + 1000);
    const naiveClients = awsClients({ region: 'us-east-1', endpoint: emulator.endpoint });
    const naive = await naiveSweep(naiveClients.s3, name, app.config.prefix, app.config.concurrency);

    const recordWru = wruPerWrite(refresh);
    const usage = (o: Once) => sweepUsage(o, recordWru, MEMORY_GB);
    const steady = steadyUsage(usage(warm), usage(refresh), K);
    const naiveUsage = {
      s3List: naive.list,
      s3Get: naive.get + naive.head,
      ddbWru: 0,
      ddbRru: 0,
      lambdaSeconds: naive.ms / 1000,
      memoryGb: MEMORY_GB,
    };

    const s3PerRun = (u: ReturnType<typeof usage>) => (u.s3List + u.s3Get) / n;
    const ddbReq = (o: Once) =>
      Object.entries(o.counts)
        .filter(([k]) => k.startsWith('DynamoDB.'))
        .reduce((s, [, v]) => s + v, 0);
    row('', ['cold', 'warm', 'refresh', 'steady*', 'naive']);
    row(
      'wall time (ms)',
      [cold, warm, refresh]
        .map((o) => fmt(o.report.durationMs, 0))
        .concat([fmt(steady.lambdaSeconds * 1000, 0), fmt(naive.ms, 0)]),
    );
    row(
      'runs/s',
      [cold, warm, refresh]
        .map((o) => fmt(n / (o.report.durationMs / 1000), 0))
        .concat([fmt(n / steady.lambdaSeconds, 0), fmt(n / (naive.ms / 1000), 0)]),
    );
    row(
      'S3 requests / run',
      [usage(cold), usage(warm), usage(refresh), steady, naiveUsage].map((u) => fmt(s3PerRun(u), 4)),
    );
    row(
      '  LIST / run',
      [usage(cold), usage(warm), usage(refresh), steady, naiveUsage].map((u) => fmt(u.s3List / n, 4)),
    );
    row(
      '  GET+HEAD / run',
      [usage(cold), usage(warm), usage(refresh), steady, naiveUsage].map((u) => fmt(u.s3Get / n, 4)),
    );
    row(
      'DynamoDB requests / run',
      [cold, warm, refresh]
        .map((o) => fmt(ddbReq(o) / n, 4))
        .concat([fmt(((K - 1) * ddbReq(warm) + ddbReq(refresh)) / K / n, 4), '-']),
    );
    row(
      'DynamoDB writes (runs)',
      [cold, warm, refresh]
        .map((o) => fmt(o.report.writes, 0))
        .concat([fmt(((K - 1) * warm.report.writes + refresh.report.writes) / K, 1), '-']),
    );
    row(
      'transitions',
      [cold, warm, refresh].map((o) => fmt(o.report.transitions.length, 0)).concat(['-', '-']),
    );
    row('peak RSS (MB)', [cold, warm, refresh].map((o) => fmt(o.maxRssMb, 0)).concat(['-', '-']));
    console.log(
      `* steady state at 1 sweep/min, stall ${STALL_MIN}m: ${K - 1} warm sweeps + 1 refresh sweep every ${K} min`,
    );

    const ours = perRunMonth(sweepCost(steady), n);
    const theirs = perRunMonth(sweepCost(naiveUsage), n);
    const parts = (u: ReturnType<typeof usage>) =>
      `S3 $${fmt(perRunMonth(sweepCost({ ...u, ddbWru: 0, ddbRru: 0, lambdaSeconds: 0 }) - PRICES.lambdaPerMillionRequests / 1e6, n), 5)}, DynamoDB $${fmt(perRunMonth((u.ddbWru / 1e6) * PRICES.ddbWritePerMillionWru + (u.ddbRru / 1e6) * PRICES.ddbReadPerMillionRru, n), 5)}, Lambda $${fmt(perRunMonth(u.lambdaSeconds * MEMORY_GB * PRICES.lambdaArmPerGbSecond + PRICES.lambdaPerMillionRequests / 1e6, n), 6)}`;
    console.log(
      `monthly cost per run (${SWEEPS_PER_MONTH.toLocaleString()} sweeps): trainwatch $${fmt(ours, 5)} (${parts(steady)})`,
    );
    console.log(
      `                                        naive      $${fmt(theirs, 5)} (${parts(naiveUsage)})`,
    );
    console.log(
      `naive / trainwatch: ${fmt(theirs / ours, 1)}x the cost, ${fmt(s3PerRun(naiveUsage) / s3PerRun(steady), 1)}x the S3 requests`,
    );
    const checks = [
      [`steady S3 requests/run/sweep ${fmt(s3PerRun(steady), 4)} <= 0.25`, s3PerRun(steady) <= 0.25],
      [`warm sweep writes ${warm.report.writes} == 0`, warm.report.writes === 0],
      [`cost/run-month $${fmt(ours, 5)} <= $0.01`, ours <= 0.01],
      [`naive/trainwatch ${fmt(theirs / ours, 1)} >= 5`, theirs / ours >= 5],
      [
        `peak RSS ${fmt(Math.max(cold.maxRssMb, warm.maxRssMb, refresh.maxRssMb), 0)} MB < 512`,
        Math.max(cold.maxRssMb, warm.maxRssMb, refresh.maxRssMb) < 512,
      ],
    ] as const;
    console.log(`targets: ${checks.map(([t, ok]) => `${ok ? 'PASS' : 'MISS'} ${t}`).join('; ')}`);
    console.log(
      `DynamoDB capacity from measured item sizes: record ~${fmt(refresh.bytes / Math.max(1, refresh.items) / 1024, 2)} KB per item -> ${recordWru} WRU per write; live partitions ${fmt(refresh.bytes / 1024, 0)} KB -> ${fmt(refresh.bytes / 4096 / 2, 0)} RRU per sweep\n`,
    );
  }
  if (sizes.length)
    console.log(
      `prices (us-east-1 list): S3 LIST $${PRICES.s3ListPer1k}/1k, GET/HEAD $${PRICES.s3GetPer1k}/1k; DynamoDB on-demand $${PRICES.ddbWritePerMillionWru}/M WRU, $${PRICES.ddbReadPerMillionRru}/M RRU; Lambda arm64 $${PRICES.lambdaArmPerGbSecond}/GB-s + $${PRICES.lambdaPerMillionRequests}/M requests. Wall times are the emulator's (its Scan and LIST are far slower than AWS's), so the Lambda share of the cost is an upper bound.\n`,
    );

  if (emulator && parts.has('aged') && values.aged) {
    const [live, ended] = values.aged.split('x') as [string, string];
    await benchAged(emulator.endpoint, live.split(',').map(Number), Number(ended));
  }
  if (emulator && parts.has('nodes') && values.nodes && values.nodes !== '0') {
    const [runs, nodes] = values.nodes.split('x').map(Number) as [number, number];
    await benchMultiNode(emulator.endpoint, runs, nodes);
  }
  if (parts.has('health')) console.log(`${healthSimLine(healthSim())}\n`);
  if (parts.has('stacks')) console.log(`${stackSimReport()}\n`);
  // Detection on the defaults (issue 30): the real checkRun over simulated runs, a sweep a minute.
  if (parts.has('detect')) console.log(`${await detectSimReport()}\n`);

  if (emulator && parts.has('sentinel')) {
    const latency = await sentinelLatency(emulator.endpoint, 25);
    console.log(
      `sentinel path (_error PUT -> EventBridge -> SQS -> handler -> Slack+SNS+EventBridge sent), ${latency.samples} runs: median ${latency.median} ms, p95 ${latency.p95} ms, max ${latency.max} ms (target: median <= ${TARGETS.sentinelMedianMs} ms: ${latency.median <= TARGETS.sentinelMedianMs ? 'PASS' : 'MISS'}; before: ${SENTINEL_MEDIAN_BEFORE_MS} ms)\n`,
    );
  }
} finally {
  await emulator?.stop();
}

if (parts.has('bundles') && !values['skip-bundles'] && existsSync(new URL('./bundles.ts', import.meta.url))) {
  const { benchBundles } = (await import('./bundles.js' as string)) as { benchBundles: () => Promise<void> };
  await benchBundles();
}
