import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { RunFile, type RunFileName } from '../lambdas/core/protocol/files.js';

/** Writes one run's heartbeat files exactly as a training script would (used by the simulator). */
export class HeartbeatWriter {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
    readonly runId: string,
    private readonly meta: Record<string, unknown>,
  ) {}

  private put(file: RunFileName, body: string): Promise<unknown> {
    const Key = `${this.prefix}/${this.runId}/${RunFile[file]}`;
    return this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body }));
  }

  metadata(fields: Record<string, unknown>): Promise<unknown> {
    Object.assign(this.meta, fields);
    return this.put(
      'metadata',
      JSON.stringify({ ...this.meta, run_id: this.runId, last_update: new Date().toISOString() }),
    );
  }

  progress(step: number, totalSteps: number, loss: number): Promise<unknown> {
    return this.put(
      'progress',
      JSON.stringify({
        step,
        total_steps: totalSteps,
        loss: Number(loss.toFixed(4)),
        learning_rate: 3e-4,
        last_updated: new Date().toISOString(),
      }),
    );
  }

  log(text: string): Promise<unknown> {
    return this.put('log', text);
  }

  error(text: string): Promise<unknown> {
    return this.put('error', text);
  }

  complete(summary: Record<string, unknown>): Promise<unknown> {
    return this.put('complete', JSON.stringify(summary));
  }

  /** A new attempt starts clean (the watchdog archives its own restarts; this covers the rest). */
  clearSentinels(): Promise<unknown> {
    const del = (f: RunFileName) =>
      this.s3.send(
        new DeleteObjectCommand({ Bucket: this.bucket, Key: `${this.prefix}/${this.runId}/${RunFile[f]}` }),
      );
    return Promise.all([del('error'), del('complete')]);
  }
}
