import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mapLimit } from '../../core/base/mapLimit.js';
import { type ObjectInfo, type RunFiles, RunGrouper, runKey } from '../../core/model/listing.js';
import type { MovedFiles, RunStore } from '../../core/model/ports.js';
import {
  nodeFile,
  nodeKeyOf,
  RunFile,
  type RunFileName,
  runFileOf,
  stackFile,
} from '../../core/protocol/files.js';
import { assertRunId } from '../../core/protocol/runId.js';

/** Requests in flight while one run's files move to its ended folder. */
const MOVE_CONCURRENCY = 8;

const status = (e: unknown) => (e instanceof S3ServiceException ? e.$metadata.httpStatusCode : undefined);

/**
 * Heartbeats in S3: runs discovered with LIST pages (no GET per healthy run), bodies read on demand.
 * Runs that ended live under `endedPrefix` (`{endedPrefix}/{run_id}/{stamp}/…`), which the sweep never lists.
 */
export class S3RunStore implements RunStore {
  private readonly root: string;

  constructor(
    private readonly bucket: string,
    private readonly prefix: string,
    private readonly s3: S3Client = new S3Client({}),
    readonly endedPrefix = 'trainwatch-ended',
  ) {
    this.root = prefix ? `${prefix}/` : '';
  }

  /**
   * Objects under `prefix` in key order, from `startAfter` (exclusive) up to `end` (exclusive), one page
   * after another. Stops at the first key past `end`: a range's last page may read a few keys of the next.
   */
  private async objects(
    prefix: string,
    visit: (o: ObjectInfo) => void,
    range: { startAfter?: string; end?: string } = {},
  ): Promise<void> {
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          ContinuationToken: token,
          StartAfter: token ? undefined : range.startAfter,
        }),
      );
      for (const o of page.Contents ?? []) {
        if (!o.Key || !o.LastModified) continue;
        if (range.end !== undefined && o.Key >= range.end) return;
        visit({ key: o.Key, lastModified: o.LastModified.getTime(), etag: o.ETag ?? '', size: o.Size ?? 0 });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  private async list(prefix: string): Promise<RunGrouper> {
    const grouper = this.grouper();
    await this.objects(prefix, (o) => grouper.add(o));
    return grouper;
  }

  /** With an empty run prefix the ended folder lies inside it: its keys are no run's. */
  private grouper(): RunGrouper {
    return new RunGrouper(this.prefix, this.root ? [] : [`${this.endedPrefix}/`]);
  }

  /**
   * The whole prefix, in ranges that start at each `splitAt` run id and run in parallel (a wide fleet
   * lists in a few sequential pages, not all of them one after another).
   */
  async listRuns(
    splitAt: readonly string[] = [],
  ): Promise<{ runs: RunFiles[]; ignored: { key: string; problem: string }[] }> {
    const grouper = this.grouper();
    // A run's keys start with `{prefix}/{id}/`; `{prefix}/{id}.~` sorts after every other run id that
    // starts with `{id}` followed by `.`, `-` or `_` (all below `/`) and before `{prefix}/{id}/`.
    // Sorted as keys, not as ids: `a-1/` < `a.b/` < `a/` < `a0/` (S3 orders keys by their bytes).
    const starts = [...new Set(splitAt.map((id) => `${this.root}${assertRunId(id)}/`))].sort();
    const ranges = [undefined, ...starts].map((start, i) => ({
      startAfter: start === undefined ? undefined : `${start.slice(0, -1)}.~`,
      end: starts[i],
    }));
    await Promise.all(ranges.map((r) => this.objects(this.root, (o) => grouper.add(o), r)));
    return { runs: grouper.result(), ignored: grouper.ignored };
  }

  async listRun(runId: string): Promise<RunFiles | undefined> {
    const grouper = await this.list(runKey(this.prefix, runId));
    return grouper.result()[0];
  }

  async read(runId: string, file: RunFileName, tailBytes?: number): Promise<Uint8Array | undefined> {
    return this.get(runKey(this.prefix, runId, RunFile[file]), tailBytes);
  }

  /** A protocol file of a run that ended, from its ended folder (the CLI: `status RUN`, `classify --run`). */
  async readEnded(folder: string, file: RunFileName, tailBytes?: number): Promise<Uint8Array | undefined> {
    if (!folder.startsWith(`${this.endedPrefix}/`)) throw new Error(`not an ended folder: ${folder}`);
    return this.get(`${folder}${RunFile[file]}`, tailBytes);
  }

  /** The ended folder of one ending, `{endedPrefix}/{run_id}/{stamp}/`. */
  endedFolder(runId: string, stamp: string): string {
    return `${this.endedPrefix}/${assertRunId(runId)}/${stamp}/`;
  }

  /**
   * Every object under the run's folder (archived attempts and files the protocol does not name
   * included) is copied to the ended folder if its ETag is still the one listed, then deleted if it
   * still is. One LIST, then one COPY (a PUT-class request) and one DELETE (free) per object.
   */
  async moveToEnded(runId: string, stamp: string, seen?: RunFiles): Promise<MovedFiles> {
    const from = runKey(this.prefix, runId);
    const folder = this.endedFolder(runId, stamp);
    const listed: ObjectInfo[] = [];
    await this.objects(from, (o) => listed.push(o));
    // What the sweep judged, by key: a protocol or node file it did not see is news to judge first.
    const judged =
      seen &&
      new Map([
        ...Object.values(seen.files).map((o) => [o.key, o.etag] as const),
        ...(seen.nodes ?? []).map((n) => [`${from}${nodeFile(n.rank)}`, n.etag] as const),
      ]);
    const isNews = (o: ObjectInfo) => {
      const path = o.key.slice(from.length);
      return judged !== undefined && (runFileOf(path) || nodeKeyOf(path)?.ok) && judged.get(o.key) !== o.etag;
    };
    const news = listed.filter(isNews).map((o) => o.key);
    if (news.length) return { folder, moved: 0, changed: news }; // judged first, by the next check
    const changed: string[] = [];
    let moved = 0;
    await mapLimit(listed, MOVE_CONCURRENCY, async (o) => {
      const to = `${folder}${o.key.slice(from.length)}`;
      try {
        await this.s3.send(
          new CopyObjectCommand({
            Bucket: this.bucket,
            Key: to,
            CopySource: `${this.bucket}/${o.key.split('/').map(encodeURIComponent).join('/')}`,
            CopySourceIfMatch: o.etag,
          }),
        );
      } catch (e) {
        if (e instanceof NoSuchKey || status(e) === 404) return; // deleted meanwhile (a racing sweep moved it)
        if (status(e) === 412) return void changed.push(o.key); // rewritten since listed: a writer is at work
        throw e;
      }
      try {
        await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: o.key, IfMatch: o.etag }));
        moved++;
      } catch (e) {
        if (status(e) === 404) return void moved++; // a racing sweep deleted it after copying it too
        if (status(e) === 412) return void changed.push(o.key); // rewritten since the copy: it stays
        throw e;
      }
    });
    return { folder, moved, changed };
  }

  async readNode(runId: string, rank: number): Promise<Uint8Array | undefined> {
    return this.get(runKey(this.prefix, runId, nodeFile(rank)));
  }

  async readStack(runId: string, rank: number): Promise<Uint8Array | undefined> {
    return this.get(runKey(this.prefix, runId, stackFile(rank)));
  }

  private async get(key: string, tailBytes?: number): Promise<Uint8Array | undefined> {
    try {
      const res = await this.s3.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: tailBytes ? `bytes=-${tailBytes}` : undefined,
        }),
      );
      return res.Body ? await res.Body.transformToByteArray() : new Uint8Array();
    } catch (e) {
      // Gone between LIST and GET (a restart archived it), or an empty object asked for by range.
      if (e instanceof NoSuchKey) return undefined;
      if (e instanceof S3ServiceException && e.$metadata.httpStatusCode === 416) return new Uint8Array();
      throw e;
    }
  }
}
