import type { RunState } from '../states.js';

/** A person's "I've got this", stored on the run item; valid until the run's next transition. */
export interface Acknowledgement {
  readonly by: string;
  readonly note?: string;
  readonly at: number;
  /** The `since` of the state acknowledged: a transition moves `since`, which ends the ack. */
  readonly since: number;
  readonly state: RunState;
}
