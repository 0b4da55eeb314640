import { hostname } from 'node:os';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import { HOSTNAME_PATTERN, parseNodeFile, toEpochMs } from '../../lambdas/core/protocol/index.js';
import { type GpuSample, sampleGpus } from './gpuTelemetry.js';
import {
  type CommandDeps,
  imdsInstanceId,
  keyValues,
  numberOption,
  parseCommandLine,
  RunFileWriter,
  TARGET_OPTIONS,
  TARGET_USAGE,
} from './heartbeatWriter.js';
import { topology } from './nodeTopology.js';

const USAGE = `usage: trainwatch node-heartbeat [--step N] [options]

Writes this node's nodes/{node_rank}.json (protocol v1.1): the node is alive, its step and its GPUs.
Run it every minute on every node, once per node (other local ranks write nothing and exit 0).
It sends no stacks (protocol v1.2's stacks/{node_rank}.json): run beside the training process, it cannot
see its threads. The Python client writes them.
Node rank: GROUP_RANK, NODE_RANK, SLURM_NODEID, else RANK / LOCAL_WORLD_SIZE; node count: NNODES,
SLURM_NNODES, else WORLD_SIZE / LOCAL_WORLD_SIZE; local rank: LOCAL_RANK, SLURM_LOCALID. None set: node 0 of 1.
  --node-rank N       this node's rank (instead of the environment's)
  --nodes N           how many nodes the run has (instead of the environment's)
  --step N            the step this node is at; the step time is measured against the last node file
  --step-time S       seconds per step, when you know it better
  --samples-per-s X, --tokens-per-s X   this node's throughput
  --instance-id ID    default TRAINWATCH_INSTANCE_ID, else IMDSv2
  --no-gpus           no GPU telemetry (default: nvidia-smi --query-gpu, when installed)
  --set key=value     any other field (repeatable; a value that parses as JSON is written as JSON)
${TARGET_USAGE.split('\n')
  .filter((l) => !l.includes('--log-file'))
  .join('\n')}
`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  'node-rank': { type: 'string' },
  nodes: { type: 'string' },
  step: { type: 'string' },
  'step-time': { type: 'string' },
  'samples-per-s': { type: 'string' },
  'tokens-per-s': { type: 'string' },
  'instance-id': { type: 'string' },
  'no-gpus': { type: 'boolean' },
  set: { type: 'string', multiple: true },
} as const;

/** What the node file command needs beyond the other commands': a GPU sampler tests can point at a stub. */
export interface NodeDeps extends CommandDeps {
  readonly gpus?: () => Promise<GpuSample>;
  readonly hostname?: () => string;
}

/** `trainwatch node-heartbeat`: nodes/{node_rank}.json for scripts that are not Python. */
export async function run(args: string[], deps: NodeDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const { values } = parseCommandLine(args, OPTIONS, USAGE);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values['log-file'])
    throw new ConfigError("--log-file is the run's log tail: pass it to `trainwatch heartbeat` on node 0");
  const place = topology(env);
  const nodeRank = numberOption(values['node-rank'], '--node-rank', true) ?? place.nodeRank;
  if (nodeRank === undefined) return 0; // not this node's local rank 0: another process writes its file
  const files = RunFileWriter.from(values, env, deps.s3);
  const now = deps.now?.() ?? new Date();
  const step = numberOption(values.step, '--step', true);
  const host = (deps.hostname ?? hostname)();
  const gpus = values['no-gpus'] ? {} : await (deps.gpus ?? (() => sampleGpus()))();
  const node: Record<string, unknown> = {
    ...keyValues(values.set, '--set'),
    node_rank: nodeRank,
    nodes: numberOption(values.nodes, '--nodes', true) ?? place.nodes,
    instance_id: values['instance-id'] ?? (env.TRAINWATCH_INSTANCE_ID?.trim() || (await imdsInstanceId(env))),
    hostname: HOSTNAME_PATTERN.test(host) ? host : undefined,
    last_updated: now.toISOString(),
    step,
    step_time_s:
      numberOption(values['step-time'], '--step-time') ??
      (step === undefined ? undefined : await measuredStepTime(files, nodeRank, step, now)),
    samples_per_s: numberOption(values['samples-per-s'], '--samples-per-s'),
    tokens_per_s: numberOption(values['tokens-per-s'], '--tokens-per-s'),
    gpus: gpus.gpus,
    gpu_error: gpus.problem,
  };
  const body = Object.fromEntries(Object.entries(node).filter(([, v]) => v !== undefined));
  const checked = parseNodeFile(new TextEncoder().encode(JSON.stringify(body)), nodeRank);
  if (!checked.ok) throw new ConfigError(`the node file would be rejected: ${checked.problem}`);
  if (checked.problems.length) throw new ConfigError(checked.problems.join('; '));
  await files.putNode(nodeRank, body);
  if (gpus.problem)
    process.stderr.write(`trainwatch node-heartbeat: ${gpus.problem} (written as gpu_error)\n`);
  return 0;
}

/** Seconds per step since this node's last file, when that one is earlier in both step and time. */
async function measuredStepTime(
  files: RunFileWriter,
  rank: number,
  step: number,
  now: Date,
): Promise<number | undefined> {
  const previous = await files.readNode(rank);
  const lastStep = previous?.step;
  const at = toEpochMs(typeof previous?.last_updated === 'string' ? previous.last_updated : undefined);
  if (typeof lastStep !== 'number' || at === undefined || lastStep >= step || at >= now.getTime())
    return undefined;
  return Math.round(((now.getTime() - at) / 1000 / (step - lastStep)) * 10_000) / 10_000;
}
