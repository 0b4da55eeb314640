import { ATTEMPTS_DIR, nodeKeyOf, type RunFileName, runFileOf, STACKS_DIR } from '../protocol/files.js';
import { assertRunId, runIdProblem } from '../protocol/runId.js';
import type { NodeObject } from './slices/nodes.js';

/** One S3 object as a LIST page returns it; `lastModified` is the server's clock (epoch ms). */
export interface ObjectInfo {
  readonly key: string;
  readonly lastModified: number;
  readonly etag: string;
  readonly size: number;
}

/** What a LIST tells about one run, without reading any body. */
export interface RunFiles {
  readonly runId: string;
  readonly files: Partial<Record<RunFileName, ObjectInfo>>;
  /** Earliest LastModified of anything under the run prefix (archived attempts aside). */
  readonly firstSeenAt: number;
  /** v1.1 node files (`nodes/{rank}.json`), by rank; absent for v1 writers. */
  readonly nodes?: readonly NodeObject[];
  /** Keys under `nodes/` that name no node (`nodes/abc.json`), one line each: a finding about the run. */
  readonly nodeProblems?: readonly string[];
  /** v1.2 stack files (`stacks/{rank}.json`) of stuck nodes, by rank. */
  readonly stacks?: readonly NodeObject[];
}

/** A key under the prefix that could not be attributed to a valid run. */
export interface IgnoredKey {
  readonly key: string;
  readonly problem: string;
}

/** `{prefix}/{run_id}/{path}` → its run id (maybe invalid) and path; undefined outside the prefix or directly under it. */
export function splitRunKey(prefix: string, key: string): { runId: string; path: string } | undefined {
  const root = prefix ? `${prefix.replace(/\/+$/, '')}/` : '';
  if (!key.startsWith(root)) return undefined;
  const rest = key.slice(root.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? undefined : { runId: rest.slice(0, slash), path: rest.slice(slash + 1) };
}

/** The key of `path` in a run's folder, `{prefix}/{run_id}/{path}`: the inverse of splitRunKey. */
export function runKey(prefix: string, runId: string, path = ''): string {
  return `${prefix ? `${prefix.replace(/\/+$/, '')}/` : ''}${assertRunId(runId)}/${path}`;
}

/** Groups listed objects by run. Pure: the S3 adapter feeds it pages; the sentinel feeds it one run. */
export class RunGrouper {
  private readonly runs = new Map<
    string,
    {
      files: Partial<Record<RunFileName, ObjectInfo>>;
      firstSeenAt: number;
      nodes?: NodeObject[];
      nodeProblems?: string[];
      stacks?: NodeObject[];
    }
  >();
  readonly ignored: IgnoredKey[] = [];

  /** `exclude`: key prefixes that hold no run (the ended folder, when the run prefix is the bucket's root). */
  constructor(
    private readonly prefix: string,
    private readonly exclude: readonly string[] = [],
  ) {}

  add(obj: ObjectInfo): void {
    if (this.exclude.some((x) => obj.key.startsWith(x))) return;
    const split = splitRunKey(this.prefix, obj.key);
    if (!split) return; // outside the prefix, or directly under it: no run's file
    const { runId, path } = split;
    const problem = runIdProblem(runId);
    if (problem) {
      if (this.ignored.length < 100) this.ignored.push({ key: obj.key, problem });
      return;
    }
    if (path.startsWith(ATTEMPTS_DIR)) return;
    let run = this.runs.get(runId);
    if (!run) {
      run = { files: {}, firstSeenAt: obj.lastModified };
      this.runs.set(runId, run);
    }
    run.firstSeenAt = Math.min(run.firstSeenAt, obj.lastModified);
    const file = runFileOf(path);
    if (file) {
      run.files[file] = obj;
      return;
    }
    const stack = nodeKeyOf(path, STACKS_DIR);
    if (stack?.ok) {
      run.stacks ??= [];
      run.stacks.push({ rank: stack.rank, lastModified: obj.lastModified, etag: obj.etag, size: obj.size });
    }
    const node = nodeKeyOf(path);
    if (!node) return;
    if (node.ok) {
      run.nodes ??= [];
      run.nodes.push({ rank: node.rank, lastModified: obj.lastModified, etag: obj.etag, size: obj.size });
    } else {
      run.nodeProblems ??= [];
      if (run.nodeProblems.length < 10) run.nodeProblems.push(node.problem);
    }
  }

  /** The runs seen so far, in id order. */
  result(): RunFiles[] {
    return [...this.runs.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([runId, r]) => ({
        runId,
        files: r.files,
        firstSeenAt: r.firstSeenAt,
        ...(r.nodes ? { nodes: r.nodes.sort((a, b) => a.rank - b.rank) } : {}),
        ...(r.nodeProblems ? { nodeProblems: r.nodeProblems } : {}),
        ...(r.stacks ? { stacks: r.stacks.sort((a, b) => a.rank - b.rank) } : {}),
      }));
  }
}
