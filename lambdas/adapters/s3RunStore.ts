import {
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { type RunFiles, RunGrouper, runKey } from '../core/listing.js';
import type { RunStore } from '../core/ports.js';
import { nodeFile, RunFile, type RunFileName } from '../core/protocol/files.js';

/** Heartbeats in S3: runs discovered with LIST pages (no GET per healthy run), bodies read on demand. */
export class S3RunStore implements RunStore {
  private readonly root: string;

  constructor(
    private readonly bucket: string,
    private readonly prefix: string,
    private readonly s3: S3Client = new S3Client({}),
  ) {
    this.root = prefix ? `${prefix}/` : '';
  }

  private async list(prefix: string): Promise<RunGrouper> {
    const grouper = new RunGrouper(this.prefix);
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) {
        if (!o.Key || !o.LastModified) continue;
        grouper.add({
          key: o.Key,
          lastModified: o.LastModified.getTime(),
          etag: o.ETag ?? '',
          size: o.Size ?? 0,
        });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return grouper;
  }

  async listRuns(): Promise<{ runs: RunFiles[]; ignored: { key: string; problem: string }[] }> {
    const grouper = await this.list(this.root);
    return { runs: grouper.result(), ignored: grouper.ignored };
  }

  async listRun(runId: string): Promise<RunFiles | undefined> {
    const grouper = await this.list(runKey(this.prefix, runId));
    return grouper.result()[0];
  }

  async read(runId: string, file: RunFileName, tailBytes?: number): Promise<Uint8Array | undefined> {
    return this.get(runKey(this.prefix, runId, RunFile[file]), tailBytes);
  }

  async readNode(runId: string, rank: number): Promise<Uint8Array | undefined> {
    return this.get(runKey(this.prefix, runId, nodeFile(rank)));
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
