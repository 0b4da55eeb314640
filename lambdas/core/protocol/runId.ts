import { ProtocolError } from '../base/errors.js';

/** Run ids are one S3 path segment: letters, digits, `.`, `_`, `-`; 1–128 chars; not `.`/`..`. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Why `id` is not a valid run id, or undefined when it is. */
export function runIdProblem(id: string): string | undefined {
  if (id.length === 0) return 'run id is empty';
  if (id.length > 128) return `run id is ${id.length} characters long (at most 128)`;
  if (!RUN_ID.test(id))
    return `run id ${JSON.stringify(id)} may hold only letters, digits, '.', '_' and '-', and must start with a letter or digit`;
  if (id.includes('..')) return `run id ${JSON.stringify(id)} must not contain '..'`;
  return undefined;
}

/** Returns `id` if valid, else throws a ProtocolError saying why. */
export function assertRunId(id: string): string {
  const problem = runIdProblem(id);
  if (problem) throw new ProtocolError(problem, { runId: id });
  return id;
}
