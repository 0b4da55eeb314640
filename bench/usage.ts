// What one measured sweep used, as the cost model prices it (bench/prices.ts): shared by the fresh
// fleet (run.ts), the aged fleets (aged.ts) and the multi-node fleet (multiNode.ts).
import type { Once } from './fleet.js';
import type { SweepCostInput } from './prices.js';

/** A request count by `Service.Operation`, 0 when none was made. */
export const count = (o: Once, key: string) => o.counts[key] ?? 0;

/** Write units per item write: the measured average item size, rounded up to whole KB (at least 1). */
export const wruPerWrite = (o: Once) => Math.max(1, Math.ceil(o.bytes / Math.max(1, o.items) / 1024));

/** One sweep's usage, its writes priced at `wru` units each. */
export function sweepUsage(o: Once, wru: number, memoryGb: number): SweepCostInput {
  return {
    s3List: count(o, 'S3.ListObjectsV2'),
    s3Get: count(o, 'S3.GetObject'),
    ddbWru: (count(o, 'DynamoDB.PutItem') + count(o, 'DynamoDB.UpdateItem')) * wru,
    // The live partitions' Query bills the items it returns per 4 KB, halved; each request rounds up.
    ddbRru: o.bytes / 4096 / 2 + 0.5 * (count(o, 'DynamoDB.Query') + count(o, 'DynamoDB.BatchGetItem')),
    lambdaSeconds: o.report.durationMs / 1000,
    memoryGb,
  };
}

/** The steady state of `k` minutes: k - 1 warm sweeps and one refresh sweep. */
export function steadyUsage(warm: SweepCostInput, refresh: SweepCostInput, k: number): SweepCostInput {
  const mix = (key: keyof SweepCostInput) => ((k - 1) * warm[key] + refresh[key]) / k;
  return {
    s3List: mix('s3List'),
    s3Get: mix('s3Get'),
    ddbWru: mix('ddbWru'),
    ddbRru: mix('ddbRru'),
    lambdaSeconds: mix('lambdaSeconds'),
    memoryGb: warm.memoryGb,
  };
}
