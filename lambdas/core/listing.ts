import { ATTEMPTS_DIR, type RunFileName, runFileOf } from './protocol/files.js';
import { runIdProblem } from './protocol/runId.js';

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
}

/** A key under the prefix that could not be attributed to a valid run. */
export interface IgnoredKey {
  readonly key: string;
  readonly problem: string;
}

/** Groups listed objects by run. Pure: the S3 adapter feeds it pages; the sentinel feeds it one run. */
export class RunGrouper {
  private readonly runs = new Map<
    string,
    { files: Partial<Record<RunFileName, ObjectInfo>>; firstSeenAt: number }
  >();
  readonly ignored: IgnoredKey[] = [];
  private readonly root: string;

  constructor(prefix: string) {
    this.root = prefix ? `${prefix.replace(/\/+$/, '')}/` : '';
  }

  add(obj: ObjectInfo): void {
    if (!obj.key.startsWith(this.root)) return;
    const rest = obj.key.slice(this.root.length);
    const slash = rest.indexOf('/');
    if (slash < 0) return; // a file directly under the prefix belongs to no run
    const runId = rest.slice(0, slash);
    const path = rest.slice(slash + 1);
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
    if (file) run.files[file] = obj;
  }

  /** The runs seen so far, in id order. */
  result(): RunFiles[] {
    return [...this.runs.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([runId, r]) => ({ runId, files: r.files, firstSeenAt: r.firstSeenAt }));
  }
}
