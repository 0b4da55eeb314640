import type { SignalInput } from '../schema.js';
import { EFA_FALLBACK_SIGNALS } from './nccl/efa.js';
import { NCCL_ERROR_SIGNALS } from './nccl/errors.js';
import { NETWORK_SIGNALS } from './nccl/network.js';
import { NCCL_TIMEOUT_SIGNALS } from './nccl/timeouts.js';

/**
 * Collective communication: NCCL errors, watchdog and process-group timeouts, the network under them; one file per
 * layer, gathered in the order they were written (which breaks ties between equal priorities on one line).
 */
export const NCCL_SIGNALS: readonly SignalInput[] = [
  ...NCCL_TIMEOUT_SIGNALS,
  ...NCCL_ERROR_SIGNALS,
  ...NETWORK_SIGNALS,
  ...EFA_FALLBACK_SIGNALS,
];
