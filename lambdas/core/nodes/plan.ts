import type { RunFiles } from '../model/listing.js';
import type { RunRecord } from '../model/record.js';
import { currentNodes } from './observe.js';

/**
 * Which node bodies are worth a GET this sweep. Freshness needs none (the LIST has it); a body is read
 * when its ETag changed and either we have never read this node (its instance and host name it in
 * alerts), it has a finding to clear, or a transition is in sight (its content shapes the alert).
 * `telemetryDue` adds the nodes whose telemetry period has passed (healthy-run judgements).
 */
export function planNodeReads(
  run: RunFiles,
  known: RunRecord,
  boundary: number | undefined,
  candidate: boolean,
  telemetryDue: (lastReadAt: number | undefined) => boolean = () => false,
): number[] {
  const out: number[] = [];
  for (const n of currentNodes(run, boundary)) {
    const s = known.facts.nodes?.[n.rank];
    if (s?.etag === n.etag) continue;
    if (
      !s ||
      s.finding ||
      candidate ||
      (boundary !== undefined && s.lastSeen <= boundary) ||
      telemetryDue(s.readAt)
    )
      out.push(n.rank);
  }
  return out;
}
