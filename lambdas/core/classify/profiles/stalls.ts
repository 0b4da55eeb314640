import type { SignalInput } from '../schema.js';
import { DUMP_SIGNALS } from './dumps.js';
import { INTERRUPTED_SIGNALS } from './interrupted.js';
import { NATIVE_STACK_SIGNALS } from './native.js';
import { PROGRESS_SIGNALS } from './progress.js';
import { STALL_REPORT_SIGNALS } from './stall.js';

/** Hangs and deadlocks, every way a stuck process shows itself in text (one file per kind of evidence). */
export const STALL_SIGNALS: readonly SignalInput[] = [
  ...STALL_REPORT_SIGNALS,
  ...DUMP_SIGNALS,
  ...INTERRUPTED_SIGNALS,
  ...NATIVE_STACK_SIGNALS,
  ...PROGRESS_SIGNALS,
];
