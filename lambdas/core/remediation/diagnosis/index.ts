export { parseDiagnosis } from './parse.js';
export { DISK_FULL_PCT, type DiagnosisSummary, summarize } from './summary.js';
export type { Diagnosis, DiskUsage, GpuStatus, XidEvent } from './types.js';
