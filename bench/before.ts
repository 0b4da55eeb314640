// The figures of issue 8's "before": commit 70f7e02 (every function loaded all seven SDK clients and the
// YAML parser), measured on this 2-core machine when it was quiet. The bench prints today's beside them.
// Import times swing with the machine's load (2x under other work): compare figures taken together.

/** Bundle size (KB) and SDK load (ms, median of 7) per function, before issue 8. */
export const BUNDLES_BEFORE = {
  sweep: { kb: 320.8, sdkMs: 333 },
  sentinel: { kb: 311.8, sdkMs: 286 },
  remediate: { kb: 321.5, sdkMs: 291 },
} as const;

/** Median `_error` → alerts sent on the emulator, 25 runs, before issue 8. */
export const SENTINEL_MEDIAN_BEFORE_MS = 184;

/** Issue 8's targets. */
export const TARGETS = { bundleKb: 250, sdkMs: 200, sentinelMedianMs: 250 } as const;
