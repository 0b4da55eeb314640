/** One GPU as `nvidia-smi --query-gpu` reports it; null where the driver said N/A or an error. */
export interface GpuStatus {
  readonly index: number;
  readonly name: string;
  readonly utilizationPct: number | null;
  readonly memoryUsedMiB: number | null;
  readonly memoryTotalMiB: number | null;
  readonly temperatureC: number | null;
  readonly eccUncorrectedVolatile: number | null;
  readonly eccUncorrectedAggregate: number | null;
  /** A field read `ERR!`, `[Unknown Error]`, `[GPU requires reset]`…: the GPU is in trouble. */
  readonly error?: string;
}

/** An Xid from the kernel log, attributed to a GPU when its PCI address matches one we know. */
export interface XidEvent {
  readonly xid: number;
  readonly pci?: string;
  readonly gpu?: number;
  readonly line: string;
}

/** Usage of one filesystem (`df -P`), for a path the run cares about. */
export interface DiskUsage {
  readonly path: string;
  readonly mount?: string;
  readonly usedPct: number;
  readonly availKiB?: number;
  /** Inode use (`df -P -i`), when known. */
  readonly inodeUsedPct?: number;
}

/** What the diagnosis document found on the instance, parsed. Every field may be unknown. */
export interface Diagnosis {
  readonly host?: string;
  readonly at?: number;
  /** true / false, or null when no PID file or pattern could tell. */
  readonly processAlive: boolean | null;
  readonly processSource?: 'pidfile' | 'pattern' | 'none';
  readonly pids: readonly number[];
  /** Why the GPUs could not be queried (no nvidia-smi, no driver, no devices). */
  readonly gpuProblem?: string;
  readonly gpus: readonly GpuStatus[];
  readonly xids: readonly XidEvent[];
  readonly kernelOomKills: readonly string[];
  readonly disks: readonly DiskUsage[];
  readonly missingPaths: readonly string[];
  readonly memTotalKiB?: number;
  readonly memAvailableKiB?: number;
  /** `oom_kill` from /proc/vmstat: host OOM kills since boot. */
  readonly oomKillsSinceBoot?: number;
  readonly cgroupVersion?: '1' | '2' | 'none';
  readonly cgroupOomKills?: number;
  readonly ncclTransport?: 'efa' | 'ib' | 'socket' | 'unknown';
  readonly efaDevices?: number;
  readonly logTail: readonly string[];
  /** `py-spy dump` of each training process, when the instance has py-spy (innermost frames first). */
  readonly stacks?: readonly import('../../stacks/pyspy.js').PySpyDump[];
  /** Why there are no stacks: py-spy not installed, or it failed. */
  readonly stackProblem?: string;
  /** The output ended without the end marker: cut by SSM's 24,000-character limit or a killed script. */
  readonly truncated: boolean;
  /** Lines we could not parse, at most a few, for debugging. */
  readonly unparsed: readonly string[];
}
