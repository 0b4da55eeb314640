import { CopyObjectCommand, DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { runKey } from '../../core/model/listing.js';
import type { AttemptArchive } from '../../core/model/ports.js';
import { ATTEMPTS_DIR, RunFile, type RunFileName } from '../../core/protocol/files.js';

function missing(e: unknown): boolean {
  const name = (e as { name?: string })?.name;
  return (
    name === 'NoSuchKey' ||
    name === 'NotFound' ||
    (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 404
  );
}

/** Archives an attempt's files in S3: copy to `{run}/attempts/{n}/{file}`, then delete the original. */
export class S3AttemptArchive implements AttemptArchive {
  constructor(
    private readonly bucket: string,
    private readonly prefix: string,
    private readonly s3: S3Client = new S3Client({}),
  ) {}

  async archive(runId: string, attempt: number, files: readonly RunFileName[]): Promise<string[]> {
    const written: string[] = [];
    for (const file of files) {
      const from = runKey(this.prefix, runId, RunFile[file]);
      const to = runKey(this.prefix, runId, `${ATTEMPTS_DIR}${attempt}/${RunFile[file]}`);
      try {
        await this.s3.send(
          new CopyObjectCommand({
            Bucket: this.bucket,
            Key: to,
            CopySource: `${this.bucket}/${from.split('/').map(encodeURIComponent).join('/')}`,
          }),
        );
      } catch (e) {
        if (missing(e)) continue;
        throw e;
      }
      // Delete only after the copy exists: a failure in between leaves both, never neither.
      await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: from }));
      written.push(to);
    }
    return written;
  }
}
