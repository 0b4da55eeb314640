// The run's pipeline, in the order a sweep runs it (docs/ARCHITECTURE.md, "Where a run's state is decided"):
//
//   sweep        live runs from the state table, their files from ranged LIST pages; new and returning runs
//   └ checkRun   one run:
//       plan       which bodies are worth a GET
//       reads      read them (files, node bodies, the stacks of a stuck run)
//       observe    fold the bodies read into the record
//       evaluate   the state the run should be in, and why (pure: `assess` asks the ordered RULES of rules.ts)
//       transition a changed state: conditional write + the alert in the outbox (only the winner alerts)
//       maintain   no change: reminders, outbox retries, bookkeeping
//       alerts → outbox → deliver → runOutcome   what the alert says, its retries, the channels, the result
//   ending       a run that can no longer change leaves the swept key space (files and record)
export { checkRun, type RunOutcome } from './checkRun.js';
export type { CheckDeps, Classifier } from './deps.js';
export { assess } from './evaluate.js';
export { splitPoints } from './ranges.js';
export { type SweepSummary, summarise } from './summary.js';
export { bringBack, type SweepDeps, sweep } from './sweep.js';
