import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { GetCommandInvocationCommand, SendCommandCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { CommandResult, CommandRunner } from '../../../core/model/ports.js';
import { validParam } from '../../../core/protocol/ssmParams.js';
import { batches } from '../../../core/remediation/index.js';
import { type ClientSource, clientOf } from '../../aws/lazy.js';

/** SSM returns at most this much standard output inline; the rest is only in the S3 output. */
export const INLINE_OUTPUT_LIMIT = 24_000;

/** Where SSM writes full command output: the runs bucket, under its own prefix. */
export interface OutputLocation {
  readonly bucket: string;
  readonly prefix: string;
}

export interface SsmCommandRunnerOptions {
  /** First wait between polls; grows ×1.5 up to 5 s. @default 1000 */
  readonly pollMs?: number;
  /** Injected so tests need not wait. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Injected clock (ms) for the deadline. */
  readonly clock?: () => number;
}

const TERMINAL = new Set(['Success', 'Failed', 'TimedOut', 'Cancelled']);

function errorName(e: unknown): string {
  return (e as { name?: string })?.name ?? 'Error';
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Runs the stack's documents with SSM Run Command: SendCommand, then GetCommandInvocation with backoff. */
export class SsmCommandRunner implements CommandRunner {
  private readonly pollMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly clock: () => number;

  constructor(
    private readonly ssm: ClientSource<SSMClient>,
    private readonly s3: S3Client,
    private readonly output: OutputLocation,
    opts: SsmCommandRunnerOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? 1000;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.clock = opts.clock ?? Date.now;
  }

  async run(req: Parameters<CommandRunner['run']>[0]): Promise<CommandResult> {
    const { instanceId, ...rest } = req;
    return (await this.runOnEach({ ...rest, instanceIds: [instanceId] })).get(instanceId)!;
  }

  /**
   * One SendCommand per batch of at most 50 instances (SSM's limit), then each invocation polled to its
   * end under one deadline. A batch refused for an invalid instance is resent one instance at a time, so
   * one terminated node does not hide what the others say.
   */
  async runOnEach(req: Parameters<CommandRunner['runOnEach']>[0]): Promise<Map<string, CommandResult>> {
    const results = new Map<string, CommandResult>();
    const valid: string[] = [];
    for (const id of new Set(req.instanceIds)) {
      if (validParam('instanceId', id)) valid.push(id);
      else
        results.set(id, {
          status: 'InvalidInstance',
          ok: false,
          output: '',
          finding: `${JSON.stringify(id)} is not an EC2 instance id`,
        });
    }
    const deadline = this.clock() + req.timeoutSeconds * 1000;
    const polls: Promise<void>[] = [];
    const send = async (ids: string[]): Promise<void> => {
      let commandId: string | undefined;
      try {
        const sent = await (await clientOf(this.ssm)).send(
          new SendCommandCommand({
            InstanceIds: ids,
            DocumentName: req.document,
            Parameters: Object.fromEntries(Object.entries(req.parameters).map(([k, v]) => [k, [v]])),
            // Delivery timeout: an offline agent answers DeliveryTimedOut instead of hanging the run.
            TimeoutSeconds: Math.max(30, req.timeoutSeconds),
            Comment: req.comment?.slice(0, 100),
            OutputS3BucketName: this.output.bucket,
            OutputS3KeyPrefix: this.output.prefix,
          }),
        );
        commandId = sent.Command?.CommandId;
      } catch (e) {
        if (ids.length > 1 && errorName(e) === 'InvalidInstanceId') {
          await Promise.all(ids.map((id) => send([id])));
          return;
        }
        for (const id of ids) results.set(id, this.sendFailure(e, id, req.document));
        return;
      }
      for (const id of ids)
        polls.push(
          (commandId
            ? this.poll(commandId, id, deadline, req.timeoutSeconds)
            : Promise.resolve<CommandResult>({
                status: 'Error',
                ok: false,
                output: '',
                finding: 'SendCommand returned no command id',
              })
          ).then((r) => {
            results.set(id, r);
          }),
        );
    };
    await Promise.all(batches(valid).map(send));
    await Promise.all(polls);
    return results;
  }

  private async poll(
    commandId: string,
    instanceId: string,
    deadline: number,
    timeoutSeconds: number,
  ): Promise<CommandResult> {
    let wait = this.pollMs;
    for (;;) {
      await this.sleep(Math.min(wait, Math.max(0, deadline - this.clock())));
      wait = Math.min(5000, Math.round(wait * 1.5));
      let inv: {
        Status?: string;
        StatusDetails?: string;
        ResponseCode?: number;
        StandardOutputContent?: string;
        StandardErrorContent?: string;
      };
      try {
        inv = await (await clientOf(this.ssm)).send(
          new GetCommandInvocationCommand({ CommandId: commandId, InstanceId: instanceId }),
        );
      } catch (e) {
        // Right after SendCommand the invocation may not exist yet: keep polling until the deadline.
        if (errorName(e) !== 'InvocationDoesNotExist' || this.clock() >= deadline)
          return {
            status: 'Error',
            ok: false,
            output: '',
            commandId,
            finding: `GetCommandInvocation failed: ${errorName(e)}: ${message(e)}`,
          };
        continue;
      }
      const status = inv.Status ?? 'Pending';
      if (TERMINAL.has(status)) return this.finish(inv, status, commandId, instanceId);
      if (this.clock() >= deadline) {
        const pending = status === 'Pending' || status === 'Delayed';
        return {
          status: pending ? 'Undeliverable' : 'TimedOut',
          ok: false,
          output: '',
          commandId,
          finding: pending
            ? `the SSM agent on ${instanceId} did not pick up the command within ${timeoutSeconds}s (agent offline or instance stopped?)`
            : `the command was still running on ${instanceId} after ${timeoutSeconds}s`,
        };
      }
    }
  }

  private sendFailure(e: unknown, instanceId: string, document: string): CommandResult {
    const name = errorName(e);
    if (name === 'InvalidInstanceId')
      return {
        status: 'InvalidInstance',
        ok: false,
        output: '',
        finding: `instance ${instanceId} is not managed by SSM (terminated, stopped, or its agent is not registered)`,
      };
    if (name === 'AccessDeniedException')
      return {
        status: 'AccessDenied',
        ok: false,
        output: '',
        finding: `not allowed to run commands on ${instanceId} (is it tagged with the stack's managed tag?)`,
      };
    if (name === 'InvalidDocument')
      return { status: 'Error', ok: false, output: '', finding: `SSM document ${document} does not exist` };
    return { status: 'Error', ok: false, output: '', finding: `SendCommand failed: ${name}: ${message(e)}` };
  }

  private async finish(
    inv: {
      StatusDetails?: string;
      ResponseCode?: number;
      StandardOutputContent?: string;
      StandardErrorContent?: string;
    },
    status: string,
    commandId: string,
    instanceId: string,
  ): Promise<CommandResult> {
    let output = inv.StandardOutputContent ?? '';
    // SSM cuts inline output at 24,000 characters; the full output is in S3 (written by the agent).
    if (output.length >= INLINE_OUTPUT_LIMIT)
      output = (await this.fullOutput(commandId, instanceId)) ?? output;
    const exitCode = inv.ResponseCode !== undefined && inv.ResponseCode >= 0 ? inv.ResponseCode : undefined;
    const details = inv.StatusDetails ?? status;
    if (status === 'Success') return { status: 'Success', ok: true, output, commandId, exitCode };
    if (details === 'Undeliverable' || details === 'DeliveryTimedOut')
      return {
        status: 'Undeliverable',
        ok: false,
        output,
        commandId,
        finding: `the SSM agent on ${instanceId} is offline (${details})`,
      };
    if (status === 'TimedOut')
      return {
        status: 'TimedOut',
        ok: false,
        output,
        commandId,
        finding: `the command timed out on ${instanceId} (${details})`,
      };
    if (status === 'Cancelled')
      return {
        status: 'Cancelled',
        ok: false,
        output,
        commandId,
        finding: `the command was cancelled on ${instanceId}`,
      };
    const err = (inv.StandardErrorContent ?? '').trim().split('\n').at(-1)?.slice(0, 200);
    return {
      status: 'Failed',
      ok: false,
      output,
      commandId,
      exitCode,
      finding: `the command failed on ${instanceId} (exit ${exitCode ?? '?'}${err ? `: ${err}` : ''})`,
    };
  }

  /** Reads `{prefix}/{commandId}/{instanceId}/…/stdout` (the step folder is named by the agent). */
  private async fullOutput(commandId: string, instanceId: string): Promise<string | undefined> {
    try {
      const base = `${this.output.prefix ? `${this.output.prefix}/` : ''}${commandId}/${instanceId}/`;
      const listed = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.output.bucket, Prefix: base }),
      );
      const key = listed.Contents?.map((o) => o.Key ?? '').find((k) => k.endsWith('/stdout'));
      if (!key) return undefined;
      const obj = await this.s3.send(new GetObjectCommand({ Bucket: this.output.bucket, Key: key }));
      return await obj.Body?.transformToString('utf8');
    } catch {
      return undefined; // the inline (cut) output is still better than nothing; the parser flags it
    }
  }
}
