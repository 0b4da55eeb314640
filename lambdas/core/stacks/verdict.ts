import { formatDuration } from '../base/duration.js';
import { toRanges } from '../base/format.js';
import type { HangFamily, Wait, WaitKind } from '../model/slices/stacks.js';
import type { StackFile } from '../protocol/stacks.js';
import { describeWait, KIND_CAUSE } from './describe.js';
import { signature, waitOf } from './wait.js';

/** One node as the stack verdict sees it: where its training thread waits, or why that is unknown. */
export interface NodeStackInput {
  readonly rank: number;
  readonly wait?: Wait;
  /** Why its stack file could not be used (too large, invalid): a finding about that node. */
  readonly problem?: string;
  /** How long its node file has been silent, when it lags the others (frozen whole, or gone). */
  readonly silentForMs?: number;
}

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

/** Point-to-point calls: pipeline stages wait in different ones by design, never a desync. */
const P2P = /^(send|recv|isend|irecv|batch_isend_irecv|wait)$/;

type Group = { readonly wait: Wait; readonly ranks: number[] };

/** The groups outside the strictly largest class (by `by`), or none when no class is strictly the largest. */
function minority(groups: readonly Group[], by: (g: Group) => string): Group[] {
  const count = new Map<string, number>();
  for (const g of groups) count.set(by(g), (count.get(by(g)) ?? 0) + g.ranks.length);
  const [first, second] = [...count.entries()].sort((a, b) => b[1] - a[1]);
  if (!first || !second || first[1] === second[1]) return [];
  return groups.filter((g) => by(g) !== first[0]);
}

/**
 * Groups the nodes by their training thread's signature and names the odd one out: the nodes that do not
 * wait in a collective while others do (the others wait for them), else the minority signature; a node
 * that wrote no stack while its heartbeat stopped (frozen whole, or gone) is odd too. Undefined when no
 * node wrote a stack. Pure.
 */
export function stackVerdict(inputs: readonly NodeStackInput[]): StackVerdict | undefined {
  const nodes: Record<string, Wait | { none: string }> = {};
  const groups = new Map<string, Group>();
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
  const multi = inputs.length > 1;
  const waiting = sorted.some((g) => g.wait.kind === 'collective');
  // A node without a stack is odd only when its node file stopped too: one that is merely late to write
  // its stack (its own stack_after not reached yet) or writes none (stacks off) says nothing.
  const frozen = none.filter((n) => n.silentForMs !== undefined);
  const notWaiting = sorted.filter((g) => g.wait.kind !== 'collective');
  const odd =
    waiting && notWaiting.length
      ? notWaiting // those who wait in a collective wait for the others
      : waiting
        ? frozen.length
          ? [] // a frozen node explains every wait, wherever each node's collective is
          : minority(
              sorted.filter((g) => !P2P.test(g.wait.call)),
              (g) => g.wait.call,
            ) // a desync
        : minority(sorted, (g) => g.wait.kind); // the same kind everywhere (all in a long save) is no outlier
  const suspects = [...odd.flatMap((g) => g.ranks), ...frozen.map((n) => n.rank)].sort((a, b) => a - b);
  const parts = sorted.map(
    (g) =>
      `${ranks(g.ranks)} ${g.wait.kind === 'collective' ? (g.ranks.length === 1 ? 'waits' : 'wait') : g.ranks.length === 1 ? 'is' : 'are'} in ${describeWait(g.wait)}`,
  );
  for (const n of none) parts.push(`${ranks([n.rank])}: ${(nodes[n.rank] as { none: string }).none}`);
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
            : new Set(sorted.map((g) => g.wait.kind)).size === 1
              ? `no node stands out: every node is in ${KIND_CAUSE[sorted[0]!.wait.kind]}`
              : 'no node stands out';
  const kind = (odd.length ? odd[0]! : sorted[0]!).wait.kind;
  const family: HangFamily = frozen.length && !odd.length ? 'hang' : (FAMILY[kind] ?? 'hang');
  return { text: `${parts.join('; ')}: ${cause}`, suspects: multi ? suspects : [], family, nodes };
}
