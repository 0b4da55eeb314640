/**
 * The attempt's facts as the version before `facts` stored them: flat on the run item. Frozen: a fact added
 * since lives only in `facts`, so this list never grows.
 */
const FLAT_FACTS: ReadonlySet<string> = new Set([
  'etags',
  'step',
  'totalSteps',
  'loss',
  'learningRate',
  'stepAdvancedAt',
  'progressCheckedAt',
  'firstStep',
  'firstStepAt',
  'findings',
  'lastLogLine',
  'errorMessage',
  'nodes',
  'nodesExpected',
  'cadence',
  'stacks',
  'health',
]);

/**
 * A run item as the record it stands for: one the previous version wrote has its attempt's facts flat, and
 * they move into `facts` as it is read (its next write stores them there), so an upgrade needs no migration
 * and loses no step, ETag or finding: nothing is read again and nothing alerts again.
 */
export function liftFacts(item: Record<string, unknown>): Record<string, unknown> {
  if (item.facts !== undefined) return item;
  const facts: Record<string, unknown> = { etags: {} };
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) (FLAT_FACTS.has(k) ? facts : rest)[k] = v;
  return { ...rest, facts };
}
