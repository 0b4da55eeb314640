// One sweep in a fresh process (as one Lambda invocation), so peak memory is the sweep's own.
// Prints one JSON line: the report, peak RSS, and the table's item sizes for capacity units.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createApp } from '../lambdas/app.js';
import { runSweep } from '../lambdas/handlers/sweep.js';

const now = Number(process.argv[2] ?? Date.now());
const app = createApp(process.env);
const report = await runSweep(app, now);
const counts = Object.fromEntries(app.clients.counter.counts);
const maxRssMb = process.resourceUsage().maxRSS / 1024;

// Item sizes (not counted above): DynamoDB bills writes per started KB and reads per 4 KB.
let items = 0;
let bytes = 0;
let key: Record<string, unknown> | undefined;
do {
  const page = await app.clients.ddb.send(
    new ScanCommand({ TableName: app.config.table, ExclusiveStartKey: key }),
  );
  for (const item of page.Items ?? []) {
    items++;
    bytes += Buffer.byteLength(JSON.stringify(item));
  }
  key = page.LastEvaluatedKey;
} while (key);
console.log(
  JSON.stringify({
    report: { ...report, ignoredKeys: report.ignoredKeys.length },
    counts,
    maxRssMb,
    items,
    bytes,
  }),
);
