/** The stack verdict of a stalled run, with the stack files it was made from (their ETags, by rank). */
export interface StackSummary {
  readonly attempt: number;
  readonly etags: Readonly<Record<string, string>>;
  readonly text: string;
  readonly suspects: readonly number[];
  readonly family: HangFamily;
  /** When the first stuck node made its last progress() call (from its stack's stuck_s), epoch ms. */
  readonly stuckSince?: number;
  /** Each node's wait, or why its stack is not usable, by rank (only nodes that wrote a stack). */
  readonly waits: Readonly<Record<string, Wait | string>>;
}

/** What a stuck training thread waits in, from its stack. */
export const WAIT_KINDS = [
  'collective',
  'data_loader',
  'checkpoint_io',
  'cuda',
  'lock',
  'sleep',
  'running',
] as const;

export type WaitKind = (typeof WAIT_KINDS)[number];

/** Where one node's training thread is: the kind of wait, the call it blocks in, the user line that made it. */
export interface Wait {
  readonly kind: WaitKind;
  /** The library call it is in (`all_reduce`, `DataLoader.__next__`, `torch.save`), or the user function. */
  readonly call: string;
  /** The innermost call below it that blocks (`queue.get`, `lock.acquire`), when there is one. */
  readonly blocks?: string;
  /** The innermost user frame, `train.py:88`. */
  readonly at?: string;
  /** v1.3: the thread's stack changed between the writer's samples (a busy loop), or not (blocked); absent: unknown. */
  readonly moving?: boolean;
}

/** The hang families of the classifier that a stack can decide. */
export type HangFamily = 'hang' | 'deadlock' | 'distributed_timeout';
