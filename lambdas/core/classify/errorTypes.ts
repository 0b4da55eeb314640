/** Error types of DESIGN.md: a restart would fail the same way (or, for efa_fallback, stay just as broken). */
export const NOT_RESTARTABLE = [
  'oom',
  'cpu_oom_killed',
  'disk_full',
  'numerical_instability',
  'exception',
  'torch',
  // NCCL fell back to TCP sockets on a job that expects EFA: slow, not dead. A restart brings the same
  // fallback until the network (the OFI plugin, the EFA provider, security groups) is fixed: warn.
  'efa_fallback',
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
  'ecc_error',
  'cancelled_preempted',
] as const;

/**
 * Restartable only on another node: the GPU itself is faulty (an Xid, an uncorrectable ECC error, a failed
 * row remap). A policy restarts these only when it names them, never through `*` or a default, and the
 * probe must still find the node's GPUs healthy (DESIGN: a restart is never blind).
 */
export const NEEDS_OTHER_NODE = ['gpu_xid', 'ecc_error'] as const;

/** Every built-in error type. Profiles may define others (restartable only if their signal says so). */
export const ERROR_TYPES: readonly string[] = [...NOT_RESTARTABLE, ...RESTARTABLE];

const RESTARTABLE_SET: ReadonlySet<string> = new Set(RESTARTABLE);

/** Whether a failure of this type may be restarted; unknown or null types are not (never restart blind). */
export function isRestartable(errorType: string | null | undefined): boolean {
  return errorType != null && RESTARTABLE_SET.has(errorType);
}
