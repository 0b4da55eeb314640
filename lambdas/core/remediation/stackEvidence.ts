import type { RunRecord } from '../model/record.js';
import type { HangFamily, Wait } from '../model/slices/stacks.js';
import { describeWait } from '../stacks/describe.js';
import { stackFromPySpy } from '../stacks/pyspy.js';
import { stackVerdict, trainingWait } from '../stacks/verdict.js';
import type { Diagnosis } from './diagnosis/types.js';

const line = (w: Wait | string | { readonly none: string } | undefined, source: string) =>
  typeof w === 'object' && 'kind' in w
    ? `training thread in ${describeWait(w)} while the others are not (${source})`
    : `no usable stack while the others have one (${typeof w === 'string' ? w : (w?.none ?? 'none written')})`;

/**
 * The nodes whose stacks set them apart, each with its evidence line for the culprit ranking: the client's
 * stacks as the sweep judged them (v1.2), else the diagnoses' py-spy dumps. Pure.
 */
export function stackOutliers(
  rec: RunRecord,
  diagnoses: ReadonlyMap<number, Diagnosis | undefined>,
  silentForMs: ReadonlyMap<number, number> = new Map(),
): { outliers: Map<number, string>; family?: HangFamily } {
  const client = rec.facts.stacks?.attempt === rec.attempt ? rec.facts.stacks : undefined;
  if (client)
    return {
      outliers: new Map(client.suspects.map((r) => [r, line(client.waits[r], 'its stack file')])),
      family: client.family,
    };
  const v = stackVerdict(
    [...diagnoses].map(([rank, d]) => {
      const stack = d?.stacks && stackFromPySpy(rank, d.stacks);
      const wait = stack && trainingWait(stack);
      return wait ? { rank, wait } : { rank, problem: d?.stackProblem, silentForMs: silentForMs.get(rank) };
    }),
  );
  return {
    outliers: new Map((v?.suspects ?? []).map((r) => [r, line(v!.nodes[r], 'py-spy')])),
    family: v?.family,
  };
}
