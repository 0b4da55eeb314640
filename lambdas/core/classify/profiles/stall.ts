import type { SignalInput } from '../schema.js';
import { DUMP_SIGNALS } from './stall/dumps.js';
import { INTERRUPTED_SIGNALS } from './stall/interrupted.js';
import { NATIVE_STACK_SIGNALS } from './stall/native.js';
import { PROGRESS_SIGNALS } from './stall/progress.js';
import { STALL_REPORT_SIGNALS } from './stall/reports.js';

/** Hangs and deadlocks, every way a stuck process shows itself in text (one file per kind of evidence). */
export const STALL_SIGNALS: readonly SignalInput[] = [
  ...STALL_REPORT_SIGNALS,
  ...DUMP_SIGNALS,
  ...INTERRUPTED_SIGNALS,
  ...NATIVE_STACK_SIGNALS,
  ...PROGRESS_SIGNALS,
];
