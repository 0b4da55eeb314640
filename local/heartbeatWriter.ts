import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { RunFileWriter } from '../bin/commands/heartbeatWriter.js';
import { runKey } from '../lambdas/core/model/listing.js';
import { stackFile } from '../lambdas/core/protocol/files.js';

/** What a simulated training script writes, through the same writer as `trainwatch heartbeat|progress|...`. */
export class HeartbeatWriter {
  private readonly files: RunFileWriter;

  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
    readonly runId: string,
    private readonly meta: Record<string, unknown>,
  ) {
    this.files = new RunFileWriter(bucket, prefix, runId, s3);
  }

  /** Rewrites metadata.json with `fields` over everything written before (validated by the schema). */
  async metadata(fields: Record<string, unknown>): Promise<void> {
    Object.assign(this.meta, fields);
    await this.files.writeMetadata(this.meta, new Date(), {});
  }

  progress(step: number, totalSteps: number, loss: number): Promise<void> {
    return this.files.putJson('progress', {
      step,
      total_steps: totalSteps,
      loss: Number(loss.toFixed(4)),
      learning_rate: 3e-4,
      last_updated: new Date().toISOString(),
    });
  }

  /** `nodes/{rank}.json` (protocol v1.1), as the local-rank-0 process of node `rank` writes it. */
  node(rank: number, fields: Record<string, unknown>): Promise<void> {
    return this.files.putNode(rank, { node_rank: rank, last_updated: new Date().toISOString(), ...fields });
  }

  /** `stacks/{rank}.json` (protocol v1.2), as the Python client's writer thread writes it for a stuck node. */
  async stack(rank: number, body: Record<string, unknown>): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: runKey(this.prefix, this.runId, stackFile(rank)),
        Body: JSON.stringify({ node_rank: rank, captured_at: new Date().toISOString(), ...body }),
        ContentType: 'application/json',
      }),
    );
  }

  log(text: string): Promise<void> {
    return this.files.put('log', text, 'text/plain');
  }

  error(text: string): Promise<void> {
    return this.files.put('error', text, 'text/plain');
  }

  complete(summary: Record<string, unknown>): Promise<void> {
    return this.files.putJson('complete', summary);
  }
}
