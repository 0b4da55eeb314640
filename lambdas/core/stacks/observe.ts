import type { RunFiles } from '../model/listing.js';
import { type RunRecord, withFacts } from '../model/record.js';
import type { StackSummary, Wait } from '../model/slices/stacks.js';
import { ofAttempt } from '../nodes/observe.js';
import { MAX_STACK_BYTES, stackFile } from '../protocol/files.js';
import { parseStackFile } from '../protocol/stacks.js';
import { stackVerdict, trainingWait } from './verdict.js';

/** Stack bodies read this sweep, by rank (`undefined`: the file vanished between LIST and GET). */
export type StackReads = ReadonlyMap<number, Uint8Array | undefined>;

/** A node file older than this, and than three times the others' median age, lags: its writer stopped. */
const LAG_MS = 90_000;

/**
 * The stack files worth a GET: those of this attempt whose ETag the last verdict did not see. An oversized
 * one is judged from its LIST size, never downloaded.
 */
export function planStackReads(run: RunFiles, known: RunRecord, boundary: number | undefined): number[] {
  const seen = known.facts.stacks?.attempt === known.attempt ? known.facts.stacks.etags : {};
  return ofAttempt(run.stacks, boundary)
    .filter((s) => seen[s.rank] !== s.etag && s.size <= MAX_STACK_BYTES)
    .map((s) => s.rank);
}

/**
 * Folds this sweep's stack reads into the run's stack verdict. A stack older than its node's step (the
 * node moved on since) is not evidence; a node file that lags the others marks a node frozen whole.
 * Pure; the verdict is dropped when no current stack is left.
 */
export function observeStacks(
  known: RunRecord,
  run: RunFiles,
  reads: StackReads,
  boundary: number | undefined,
  now: number,
): RunRecord {
  const same = known.facts.stacks?.attempt === known.attempt ? known.facts.stacks : undefined;
  const files = ofAttempt(run.stacks, boundary);
  const etags: Record<string, string> = {};
  const waits: Record<string, Wait | string> = {};
  // When the first of the stuck nodes stopped calling progress() (its stack's time less its stuck_s).
  let stuckSince = same?.stuckSince;
  for (const f of files) {
    const body = reads.get(f.rank);
    etags[f.rank] = f.etag;
    if (f.size > MAX_STACK_BYTES) {
      waits[f.rank] = `${stackFile(f.rank)} is ${f.size} bytes (at most ${MAX_STACK_BYTES})`;
      continue;
    }
    if (!reads.has(f.rank)) {
      if (same?.waits[f.rank] !== undefined) waits[f.rank] = same.waits[f.rank]!;
      continue;
    }
    if (!body) continue;
    const parsed = parseStackFile(body, f.rank);
    const step = known.facts.nodes?.[f.rank]?.step ?? known.facts.step;
    if (!parsed.ok) waits[f.rank] = parsed.problem;
    else if (step === undefined || parsed.value.step == null || parsed.value.step >= step) {
      const wait = trainingWait(parsed.value);
      const moving = parsed.value.moving;
      waits[f.rank] = wait
        ? typeof moving === 'boolean'
          ? { ...wait, moving }
          : wait
        : `${f.rank}: no training thread in the stack`;
      const since = f.lastModified - (parsed.value.stuck_s ?? 0) * 1000;
      stuckSince = Math.min(stuckSince ?? since, since);
    }
  }
  if (!Object.values(waits).some((w) => typeof w !== 'string'))
    return withFacts(known, { stacks: undefined });
  const nodes = ofAttempt(run.nodes, boundary);
  const ages = nodes.map((n) => now - n.lastModified).sort((a, b) => a - b);
  const ranks = [...new Set([...nodes.map((n) => n.rank), ...files.map((f) => f.rank)])].sort(
    (a, b) => a - b,
  );
  const verdict = stackVerdict(
    ranks.map((rank) => {
      const w = waits[rank];
      const age = nodes.find((n) => n.rank === rank);
      const others = ages.filter((a) => a !== (age ? now - age.lastModified : -1));
      const median = others[Math.floor(others.length / 2)] ?? 0;
      // Lagging: far older than the others' files, or nothing written since the others got stuck (they
      // went on writing node files until their stacks, stack_after later: a live node's writer does too).
      const lagging =
        age &&
        (now - age.lastModified > Math.max(LAG_MS, 3 * median) ||
          (stuckSince !== undefined && age.lastModified <= stuckSince));
      const lag = lagging ? now - age.lastModified : undefined;
      return typeof w === 'object' ? { rank, wait: w } : { rank, problem: w, silentForMs: lag };
    }),
  )!;
  const summary: StackSummary = {
    attempt: known.attempt,
    etags,
    waits,
    text: verdict.text,
    suspects: verdict.suspects,
    family: verdict.family,
    ...(stuckSince !== undefined ? { stuckSince } : {}),
  };
  return withFacts(known, { stacks: summary });
}
