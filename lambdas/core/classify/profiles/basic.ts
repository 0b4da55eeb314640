import type { SignalInput } from '../schema.js';
import { CODE_SIGNALS } from './basic/code.js';
import { DISK_SIGNALS } from './basic/disk.js';
import { HARDWARE_SIGNALS } from './basic/hardware.js';
import { MEMORY_SIGNALS } from './basic/memory.js';
import { NUMERICS_SIGNALS } from './basic/numerics.js';
import { STOP_SIGNALS } from './basic/stops.js';

/**
 * Failures every training job can hit: GPU hardware, preemption, memory, disk, numbers, Python errors. One file
 * per failure family (basic/*.ts); `compareMatches` (explain.ts) picks the winner, the order here only breaks a full tie.
 */
export const BASIC_SIGNALS: readonly SignalInput[] = [
  ...HARDWARE_SIGNALS,
  ...STOP_SIGNALS,
  ...MEMORY_SIGNALS,
  ...DISK_SIGNALS,
  ...NUMERICS_SIGNALS,
  ...CODE_SIGNALS,
];
