/** Error types of DESIGN.md: a restart would fail the same way. */
export const NOT_RESTARTABLE = [
  'oom',
  'cpu_oom_killed',
  'disk_full',
  'numerical_instability',
  'exception',
  'torch',
] as const;

/** Error types of DESIGN.md that are worth a restart from the latest checkpoint. */
export const RESTARTABLE = [
  'nccl',
  'nccl_timeout',
  'distributed_timeout',
  'watchdog_timeout',
  'communication',
  'hang',
  'deadlock',
  'gpu_xid',
  'cancelled_preempted',
] as const;

/** Every built-in error type. Profiles may define others (restartable only if their signal says so). */
export const ERROR_TYPES: readonly string[] = [...NOT_RESTARTABLE, ...RESTARTABLE];

const RESTARTABLE_SET: ReadonlySet<string> = new Set(RESTARTABLE);

/** Whether a failure of this type may be restarted; unknown or null types are not (never restart blind). */
export function isRestartable(errorType: string | null | undefined): boolean {
  return errorType != null && RESTARTABLE_SET.has(errorType);
}
