import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ListCommandsCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIAGNOSE = join(ROOT, 'lambdas/ssm/diagnose.sh');
const STUBS = join(ROOT, 'test/fixtures/bin');
/** Parameter Store names read by the SSM patch in scripts/moto_patches.py. */
const INSTANCE_PARAM = (id: string) => `/trainwatch/emulator/instances/${id}`;
const INVOCATION_PARAM = (cmd: string, id: string) => `/trainwatch/emulator/invocations/${cmd}/${id}`;

/** What the instance is like: which recorded nvidia-smi / dmesg it replays, and whether the job is still there. */
export interface InstanceBehaviour {
  /** A folder of test/fixtures/bin: healthy, idle, err, xid79, ecc, oom, nodevices, nodriver. */
  readonly stubs: string;
  /** A process matching the run's pattern stays alive (a hung job) until a restart stops it. */
  readonly hungProcess?: boolean;
  /** The SSM agent is offline: every command times out undelivered. */
  readonly offline?: boolean;
}

/** The local mode's instance kinds (local/scenarios.ts), as instance behaviours. */
export const BEHAVIOURS: Readonly<Record<string, InstanceBehaviour>> = {
  healthy: { stubs: 'healthy' },
  oom: { stubs: 'idle' },
  nccl: { stubs: 'idle' },
  hang: { stubs: 'healthy', hungProcess: true },
  gone: { stubs: 'idle', offline: true },
  xid79: { stubs: 'xid79' },
};

/** What the restart document asked for: the local simulator starts the next attempt from this. */
export interface RestartRequest {
  readonly runId: string;
  readonly attempt: number;
  readonly command: string;
  readonly checkpointDir: string;
  readonly delaySeconds: number;
  /** Multi-node jobs: this node's rank, the node count, node 0's host and hosts to avoid. */
  readonly nodeRank: number;
  readonly nnodes: number;
  readonly masterAddr: string;
  readonly excludeHosts: string;
  readonly resume: string;
}

export interface SimulatedInstanceOptions {
  readonly endpoint: string;
  readonly instanceId: string;
  readonly behaviour: InstanceBehaviour;
  readonly onRestart?: (r: RestartRequest) => void | Promise<void>;
  readonly region?: string;
  readonly pollMs?: number;
  readonly ssm?: SSMClient;
  readonly s3?: S3Client;
}

type Invocation = {
  Status: string;
  StatusDetails: string;
  ResponseCode: number;
  StandardOutputContent: string;
  StandardErrorContent: string;
};

/**
 * An EC2 instance for the local mode and tests: it watches SSM (ListCommands on the emulator) for commands
 * sent to it, runs the real diagnose.sh with recorded nvidia-smi/dmesg outputs, hands restarts to a
 * callback, and reports outcomes through the moto patch (Parameter Store) and the S3 output location.
 */
export class SimulatedInstance {
  private readonly ssm: SSMClient;
  private readonly s3: S3Client;
  private readonly seen = new Set<string>();
  private timer?: NodeJS.Timeout;
  private busy = false;
  private hung?: ChildProcess;
  /** Commands handled so far, by document name, for tests and logs. */
  readonly handled: { commandId: string; document: string }[] = [];

  constructor(private readonly o: SimulatedInstanceOptions) {
    const base = {
      region: o.region ?? 'us-east-1',
      endpoint: o.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 2,
    };
    this.ssm = o.ssm ?? new SSMClient(base);
    this.s3 = o.s3 ?? new S3Client({ ...base, forcePathStyle: true });
  }

  /** Registers with the emulator (its commands now wait for this simulator) and starts polling. */
  async start(): Promise<void> {
    await this.ssm.send(
      new PutParameterCommand({
        Name: INSTANCE_PARAM(this.o.instanceId),
        Value: 'simulated',
        Type: 'String',
        Overwrite: true,
      }),
    );
    this.timer = setInterval(() => void this.tick(), this.o.pollMs ?? 250);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    if (this.hung && this.hung.exitCode === null) this.hung.kill('SIGKILL');
  }

  /** One poll: answers every command not seen yet. Public so tests can drive it without timers. */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const { Commands = [] } = await this.ssm.send(
        new ListCommandsCommand({ InstanceId: this.o.instanceId }),
      );
      for (const c of Commands) {
        if (!c.CommandId || this.seen.has(c.CommandId)) continue;
        this.seen.add(c.CommandId);
        const params = Object.fromEntries(
          Object.entries(c.Parameters ?? {}).map(([k, v]) => [k, v[0] ?? '']),
        );
        const inv = await this.answer(params);
        await this.report(
          c.CommandId,
          inv,
          c.OutputS3BucketName,
          c.OutputS3KeyPrefix,
          'Command' in params ? 'restart' : 'diagnose',
        );
        this.handled.push({ commandId: c.CommandId, document: c.DocumentName ?? '' });
      }
    } catch {
      // The emulator went away (shutdown) or a transient error: the next tick tries again.
    } finally {
      this.busy = false;
    }
  }

  private async answer(p: Record<string, string>): Promise<Invocation> {
    const done = (out: string, code = 0): Invocation => ({
      Status: code === 0 ? 'Success' : 'Failed',
      StatusDetails: code === 0 ? 'Success' : 'Failed',
      ResponseCode: code,
      StandardOutputContent: out,
      StandardErrorContent: '',
    });
    if (this.o.behaviour.offline)
      return {
        Status: 'TimedOut',
        StatusDetails: 'DeliveryTimedOut',
        ResponseCode: -1,
        StandardOutputContent: '',
        StandardErrorContent: '',
      };
    if ('Command' in p) {
      this.hung?.kill('SIGKILL');
      this.hung = undefined;
      const req: RestartRequest = {
        runId: p.RunId ?? '',
        attempt: Number(p.Attempt),
        command: p.Command ?? '',
        checkpointDir: p.CheckpointDir ?? '',
        delaySeconds: Number(p.DelaySeconds ?? 0),
        nodeRank: Number(p.NodeRank ?? 0),
        nnodes: Number(p.NNodes ?? 1),
        masterAddr: p.MasterAddr ?? '',
        excludeHosts: p.ExcludeHosts ?? '',
        resume: p.Resume ?? 'require',
      };
      // The simulated checkpoint directory holds step_latest when the run names one (as restart.sh would find).
      if (!req.checkpointDir && req.resume === 'require')
        return done(
          'restart.no_checkpoint=(no checkpoint_dir known)\nrestart.refused=no checkpoint under (no checkpoint_dir known)\nend=ok\n',
          3,
        );
      // The restart document's launcher sleeps the backoff before starting the job; so does the simulator.
      if (req.delaySeconds > 0)
        setTimeout(() => void this.o.onRestart?.(req), req.delaySeconds * 1000).unref();
      else await this.o.onRestart?.(req);
      return done(
        `${req.checkpointDir ? '' : 'restart.from_scratch=(no checkpoint_dir known)\n'}restart.resume_from=${req.checkpointDir ? `${req.checkpointDir}/step_latest` : ''}\nrestart.launched_pid=0\nrestart.delay_seconds=${req.delaySeconds}\nend=ok\n`,
      );
    }
    if (this.o.behaviour.hungProcess && p.ProcessPattern && !this.hung)
      this.hung = await hungProcess(p.ProcessPattern);
    return done(await runDiagnose(this.o.behaviour.stubs, p));
  }

  private async report(
    commandId: string,
    inv: Invocation,
    bucket?: string,
    prefix?: string,
    step = 'diagnose',
  ): Promise<void> {
    // As the agent does: the full output to S3, at most 24,000 characters inline.
    if (bucket && inv.StandardOutputContent) {
      const key = `${prefix ? `${prefix}/` : ''}${commandId}/${this.o.instanceId}/awsrunShellScript/${step}/stdout`;
      await this.s3
        .send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: inv.StandardOutputContent }))
        .catch(() => undefined);
    }
    const inline = { ...inv, StandardOutputContent: inv.StandardOutputContent.slice(0, 24_000) };
    await this.ssm.send(
      new PutParameterCommand({
        Name: INVOCATION_PARAM(commandId, this.o.instanceId),
        Value: JSON.stringify(inline),
        Type: 'String',
        Tier: 'Advanced',
        Overwrite: true,
      }),
    );
  }
}

/** Runs the real diagnosis script with the document's parameters as its environment and recorded tools on PATH. */
function runDiagnose(stubs: string, p: Record<string, string>): Promise<string> {
  const env = {
    PATH: `${join(STUBS, stubs)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    TW_RUN_ID: p.RunId ?? '',
    TW_PID_FILE: p.PidFile ?? '',
    TW_PROCESS_PATTERN: p.ProcessPattern ?? '',
    TW_CHECKPOINT_DIR: p.CheckpointDir ?? '',
    TW_LOG_PATH: p.LogPath ?? '',
    TW_TAIL_LINES: p.TailLines ?? '40',
  };
  return new Promise((resolve) => {
    execFile('bash', [DIAGNOSE], { env, timeout: 30_000 }, (_err, stdout) => resolve(String(stdout)));
  });
}

/** A process whose command line matches `pattern`, as a hung training job would be. */
async function hungProcess(pattern: string): Promise<ChildProcess> {
  const child = spawn('bash', ['-c', 'exec -a "$0" sleep 600', pattern], {
    stdio: 'ignore',
    detached: false,
  });
  await new Promise((r) => setTimeout(r, 100));
  return child;
}

/** Starts one simulated instance per local-mode scenario; returns a stopper (the local mode's `instances` hook). */
export async function simulatedInstances(
  endpoint: string,
  scenarios: readonly { readonly runId: string; readonly instanceId: string; readonly instance: string }[],
  onRestart: (runId: string, attempt: number) => void,
): Promise<() => Promise<void>> {
  const instances = scenarios.map(
    (s) =>
      new SimulatedInstance({
        endpoint,
        instanceId: s.instanceId,
        behaviour: BEHAVIOURS[s.instance] ?? BEHAVIOURS.healthy!,
        onRestart: (r) => onRestart(r.runId, r.attempt),
      }),
  );
  await Promise.all(instances.map((i) => i.start()));
  return async () => {
    await Promise.all(instances.map((i) => i.stop()));
  };
}
