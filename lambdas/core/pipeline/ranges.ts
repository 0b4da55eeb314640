import type { RunRecord } from '../model/record.js';

/** Keys one LIST page returns. */
const PAGE_KEYS = 1000;
/** Pages one LIST range reads one after another before another range runs beside it. */
export const PAGES_PER_RANGE = 8;

/** A run's keys, estimated from what its record knows: the four protocol files and its node files. */
const keysOf = (r: RunRecord) => 4 + Object.keys(r.facts.nodes ?? {}).length;

/**
 * Run ids (sorted) at which the sweep starts a new LIST range, so that no range reads more than about
 * PAGES_PER_RANGE pages in a row: a fleet of 1,000 single-node runs lists as one range (no extra
 * request), one of 10,000 as five or so in parallel. The ranges cover the whole prefix, so a run the
 * live set does not know yet is listed by whichever range its id falls in.
 */
export function splitPoints(live: Iterable<RunRecord>, pagesPerRange = PAGES_PER_RANGE): string[] {
  const runs = [...live].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
  const budget = PAGE_KEYS * pagesPerRange;
  const out: string[] = [];
  let keys = 0;
  for (const r of runs) {
    const k = keysOf(r);
    if (keys > 0 && keys + k > budget) {
      out.push(r.runId);
      keys = 0;
    }
    keys += k;
  }
  return out;
}
