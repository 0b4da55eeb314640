import type { Wait, WaitKind } from '../model/slices/stacks.js';

// How a wait reads in an alert: the call and where, and what each kind most likely means.

/** "`all_reduce` (train.py:88)", "`DataLoader.__next__` (queue.get, dataset.py:41)". */
export function describeWait(w: Wait): string {
  const where = [w.blocks, w.at].filter(Boolean).join(', ');
  return `\`${w.call}\`${where ? ` (${where})` : ''}`;
}

/** What a wait of each kind most likely means, as the cause the alert names. */
export const KIND_CAUSE: Readonly<Record<WaitKind, string>> = {
  // Odd only among other collectives: the ranks disagree on the order of calls (a desync).
  collective: 'different collective (the ranks disagree on the order of calls)',
  data_loader: 'data loader',
  checkpoint_io: 'checkpoint I/O',
  cuda: 'CUDA kernel or synchronize',
  lock: 'lock',
  sleep: 'sleep',
  running: 'slow step (still running code)',
};
