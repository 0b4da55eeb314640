import { NOT_RESTARTABLE } from './errorTypes.js';

/**
 * Failure families, root causes first: when several signals match one log, a signal of a higher-ranked family
 * wins whatever its priority, because the lower families are what the higher ones cause (a dead GPU or a full
 * disk makes NCCL fail, NCCL's failure raises a Python exception). Priority only orders signals within a family
 * rank. DESIGN names the chain: Xid / ECC > disk full > host OOM kill > NCCL / network > the exception raised.
 */
export const FAMILIES = [
  { family: 'hardware', rank: 70, types: ['gpu_xid', 'ecc_error'] },
  { family: 'disk', rank: 60, types: ['disk_full'] },
  // GPU and host memory share a rank: either starves a rank whose peers then fail in NCCL.
  { family: 'memory', rank: 50, types: ['cpu_oom_killed', 'oom'] },
  { family: 'numerics', rank: 40, types: ['numerical_instability'] },
  // Stopped from outside: the peers of a SIGTERMed rank see NCCL and network errors.
  { family: 'preemption', rank: 30, types: ['cancelled_preempted'] },
  // A job that expected EFA and got TCP: the network setup is the cause of what NCCL does next.
  { family: 'efa', rank: 25, types: ['efa_fallback'] },
  { family: 'network', rank: 20, types: ['communication'] },
  {
    family: 'collective',
    rank: 20,
    types: ['nccl', 'nccl_timeout', 'watchdog_timeout', 'distributed_timeout'],
  },
  { family: 'hang', rank: 20, types: ['hang', 'deadlock'] },
  { family: 'code', rank: 10, types: ['exception', 'torch'] },
] as const;

/** Rank of an error type a profile invented: with the generic exceptions (it is the log's own words). */
const CUSTOM_RANK = 10;

const BY_TYPE: ReadonlyMap<string, { family: string; rank: number }> = new Map(
  FAMILIES.flatMap((f) => f.types.map((t) => [t, { family: f.family, rank: f.rank }] as const)),
);

/** The family of an error type: `healthy` for none, the type itself for one a profile invented. */
export function familyOf(errorType: string | null | undefined): string {
  if (errorType == null) return 'healthy';
  return BY_TYPE.get(errorType)?.family ?? errorType;
}

/** How much of a root cause an error type is (higher: more likely the cause of the others); 0 for none. */
export function causeRankOf(errorType: string | null | undefined): number {
  if (errorType == null) return 0;
  return BY_TYPE.get(errorType)?.rank ?? CUSTOM_RANK;
}

/** What should happen to the run, per classification: DESIGN's restart semantics in four words. */
export type Decision = 'restart' | 'dont_restart' | 'warn' | 'healthy';

/** Types that only warn: the run goes on, a person should look (a restart changes nothing). */
const WARN_ONLY: ReadonlySet<string> = new Set(['efa_fallback']);
const NOT_RESTARTABLE_SET: ReadonlySet<string> = new Set(NOT_RESTARTABLE);

/** The decision an error type calls for (a custom type: by its signal's `restartable`). */
export function decisionOf(errorType: string | null | undefined, restartable?: boolean): Decision {
  if (errorType == null) return 'healthy';
  if (WARN_ONLY.has(errorType)) return 'warn';
  if (NOT_RESTARTABLE_SET.has(errorType)) return 'dont_restart';
  if (restartable === undefined) return BY_TYPE.has(errorType) ? 'restart' : 'dont_restart';
  return restartable ? 'restart' : 'dont_restart';
}
