/**
 * Public list prices, us-east-1, as published by AWS in 2025–2026 (on-demand; free tiers ignored).
 * The benchmark multiplies measured request counts by these; change them here if yours differ.
 */
export const PRICES = {
  s3ListPer1k: 0.005,
  s3GetPer1k: 0.0004,
  ddbWritePerMillionWru: 0.625,
  ddbReadPerMillionRru: 0.125,
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
} as const;

export const SWEEPS_PER_MONTH = 60 * 24 * 30;

/** Dollars for one sweep's requests (per whole population). */
export interface SweepCostInput {
  readonly s3List: number;
  readonly s3Get: number;
  readonly ddbWru: number;
  readonly ddbRru: number;
  /** Lambda billed duration of the sweep, seconds, at `memoryGb`. */
  readonly lambdaSeconds: number;
  readonly memoryGb: number;
}

export function sweepCost(c: SweepCostInput): number {
  return (
    (c.s3List / 1000) * PRICES.s3ListPer1k +
    (c.s3Get / 1000) * PRICES.s3GetPer1k +
    (c.ddbWru / 1e6) * PRICES.ddbWritePerMillionWru +
    (c.ddbRru / 1e6) * PRICES.ddbReadPerMillionRru +
    c.lambdaSeconds * c.memoryGb * PRICES.lambdaArmPerGbSecond +
    PRICES.lambdaPerMillionRequests / 1e6
  );
}

/** Monthly cost per run at one sweep a minute. */
export const perRunMonth = (sweepDollars: number, runs: number) => (sweepDollars * SWEEPS_PER_MONTH) / runs;
