import { formatDuration } from '../duration.js';
import { toRanges } from '../health/format.js';
import type { StackFile } from '../protocol/stacks.js';
import { describeWait, KIND_CAUSE, signature, type Wait, type WaitKind, waitOf } from './wait.js';

/** One node as the stack verdict sees it: where its training thread waits, or why that is unknown. */
export interface NodeStackInput {
  readonly rank: number;
  readonly wait?: Wait;
  /** Why its stack file could not be used (too large, invalid): a finding about that node. */
  readonly problem?: string;
  /** How long its node file has been silent, when it lags the others (frozen whole, or gone). */
  readonly silentForMs?: number;
}

/** The hang families of the classifier that a stack can decide. */
export type HangFamily = 'hang' | 'deadlock' | 'distributed_timeout';

/** What the stacks say: one line for the alert, the odd ones out, and each node's wait. */
export interface StackVerdict {
  readonly text: string;
  /** The nodes to blame (empty when none stands out, or the run has one node). */
  readonly suspects: readonly number[];
  readonly family: HangFamily;
  /** Each node's wait (`none`: it wrote no usable stack, with why), by rank. */
  readonly nodes: Readonly<Record<string, Wait | { readonly none: string }>>;
}

/** "node 2", "nodes 0, 1, 3", "nodes 0–13, 15": runs of three or more as a range. */
const ranks = (xs: readonly number[]) =>
  `node${xs.length === 1 ? '' : 's'} ${toRanges(xs)
    .split(',')
    .map((r) => {
      const [a, b] = r.split('-').map(Number);
      return b === undefined ? `${a}` : b - a! > 1 ? `${a}–${b}` : `${a}, ${b}`;
    })
    .join(', ')}`;

/** The training thread's wait: the thread marked `training`, else the first. */
export function trainingWait(s: StackFile): Wait | undefined {
  const t = s.threads.find((x) => x.training) ?? s.threads[0];
  return t?.frames.length ? waitOf(t.frames) : undefined;
}

const FAMILY: Partial<Record<WaitKind, HangFamily>> = { lock: 'deadlock', collective: 'distributed_timeout' };

/**
 * Groups the nodes by their training thread's signature and names the odd one out: the nodes that do not
 * wait in a collective while others do (the others wait for them), else the minority signature; a node
 * that wrote no stack while its heartbeat stopped (frozen whole, or gone) is odd too. Undefined when no
 * node wrote a stack. Pure.
 */
export function stackVerdict(inputs: readonly NodeStackInput[]): StackVerdict | undefined {
  const nodes: Record<string, Wait | { none: string }> = {};
  const groups = new Map<string, { wait: Wait; ranks: number[] }>();
  const none: NodeStackInput[] = [];
  for (const n of inputs) {
    const wait = n.wait;
    if (!wait) {
      const silent =
        n.silentForMs !== undefined ? `its heartbeat stopped ${formatDuration(n.silentForMs)} ago` : '';
      nodes[n.rank] = { none: [n.problem ?? 'no stack', silent].filter(Boolean).join('; ') };
      none.push(n);
      continue;
    }
    nodes[n.rank] = wait;
    const key = signature(wait);
    const g = groups.get(key) ?? { wait, ranks: [] };
    g.ranks.push(n.rank);
    groups.set(key, g);
  }
  if (groups.size === 0) return undefined;
  const sorted = [...groups.values()].sort((a, b) => b.ranks.length - a.ranks.length);
  const waiting = sorted.some((g) => g.wait.kind === 'collective');
  // Those who wait in a collective wait for the others; otherwise the minority signature stands out.
  // (Nodes in different collectives disagree on the order of calls: the minority is odd.)
  const notWaiting = sorted.filter((g) => g.wait.kind !== 'collective');
  const odd =
    waiting && notWaiting.length
      ? notWaiting
      : sorted.length > 1 && sorted[0]!.ranks.length > sorted[1]!.ranks.length
        ? sorted.slice(1)
        : [];
  const frozen = none.filter((n) => n.silentForMs !== undefined || (waiting && odd.length === 0));
  const suspects = [...odd.flatMap((g) => g.ranks), ...frozen.map((n) => n.rank)].sort((a, b) => a - b);
  const parts = sorted.map(
    (g) =>
      `${ranks(g.ranks)} ${g.wait.kind !== 'collective' ? 'is' : g.ranks.length === 1 ? 'waits' : 'wait'} in ${describeWait(g.wait)}`,
  );
  for (const n of none) parts.push(`${ranks([n.rank])}: ${(nodes[n.rank] as { none: string }).none}`);
  const multi = inputs.length > 1;
  const cause =
    odd.length === 1 && frozen.length === 0
      ? `${multi ? `${ranks(odd[0]!.ranks)}'s ` : 'the '}${KIND_CAUSE[odd[0]!.wait.kind]} is the likely cause`
      : suspects.length
        ? `${ranks(suspects)} ${suspects.length === 1 ? 'is' : 'are'} the likely cause${frozen.length ? ' (frozen whole, or gone)' : ''}`
        : multi && waiting
          ? 'no node stands out: a rank outside these nodes or the network is the likely cause'
          : !multi
            ? sorted[0]!.wait.kind === 'collective'
              ? "another process of this node that never joined it is the likely cause (py-spy dump each rank's process)"
              : `the ${KIND_CAUSE[sorted[0]!.wait.kind]} is the likely cause`
            : 'no node stands out';
  const kind = (odd.length ? odd[0]! : sorted[0]!).wait.kind;
  const family: HangFamily = frozen.length && !odd.length ? 'hang' : (FAMILY[kind] ?? 'hang');
  return { text: `${parts.join('; ')}: ${cause}`, suspects: multi ? suspects : [], family, nodes };
}
