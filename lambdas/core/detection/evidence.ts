import type { StackSummary, Wait, WaitKind } from '../model/slices/stacks.js';

/** Waits a thread sits in only when it is blocked: a running loop or a save is no hang. */
const BLOCKING: ReadonlySet<WaitKind> = new Set(['collective', 'data_loader', 'lock', 'cuda', 'sleep']);
/** Waits a healthy loop passes through often (the next batch, a host sync): blocked only when not moving. */
const PASSING: ReadonlySet<WaitKind> = new Set(['data_loader', 'cuda', 'sleep']);

type Waits = StackSummary['waits'];
const waitsOf = (w: Waits) => Object.entries(w).filter((e): e is [string, Wait] => typeof e[1] === 'object');

const blocked = (w: Wait) => BLOCKING.has(w.kind) && w.moving !== true;

/**
 * Whether the stacks show a hang, so the learned (short) stall threshold may speak: a node frozen whole,
 * the odd ones out blocked in a wait (not a save, not a busy loop), every node waiting in a collective, or a
 * single node blocked in a lock or a collective (or in a wait the client saw not moving). Thin or healthy
 * evidence (a running thread, a checkpoint write, an evaluation loop) is none: the fixed threshold holds. Pure.
 */
export function showsHang(s: StackSummary | undefined): boolean {
  if (!s) return false;
  const waits = waitsOf(s.waits);
  if (waits.length === 0) return false;
  const nodes = Object.keys(s.waits).length;
  if (nodes > 1 || s.suspects.length > 0) {
    if (s.suspects.length > 0)
      return s.suspects.every((r) => {
        const w = s.waits[r];
        return w === undefined || typeof w === 'string' || blocked(w);
      });
    return waits.length > 1 && waits.every(([, w]) => w.kind === 'collective' && blocked(w));
  }
  const [, w] = waits[0]!;
  return blocked(w) && (!PASSING.has(w.kind) || w.moving === false);
}

/**
 * Whether the stacks show the training thread at work rather than stuck: no hang, and some node's thread moves,
 * runs code (not seen still) or writes a checkpoint, the others waiting for it (an evaluation or a save
 * without a `phase`). Pure.
 */
export function showsBusy(s: StackSummary | undefined): boolean {
  if (!s || showsHang(s)) return false;
  const waits = waitsOf(s.waits);
  // A running thread the client saw not moving (one C call that never returns) is not shown to be at work.
  return waits.some(
    ([, w]) =>
      w.moving === true || w.kind === 'checkpoint_io' || (w.kind === 'running' && w.moving !== false),
  );
}
