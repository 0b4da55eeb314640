import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleGpus } from '../../bin/commands/gpuTelemetry.js';
import { run as nodeHeartbeat } from '../../bin/commands/nodeHeartbeat.js';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import { parseNodeFile } from '../../lambdas/core/protocol/index.js';
import { type TestEnvironment, testEnvironment } from '../support/environment.js';

const STUBS = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'bin');
const stub = (scenario: string) => () => sampleGpus(join(STUBS, scenario, 'nvidia-smi'));

let t: TestEnvironment;
let s3: S3Client;
let env: Record<string, string>;
beforeAll(async () => {
  t = await testEnvironment();
  s3 = t.app().clients.s3;
  env = { ...t.env, AWS_EC2_METADATA_DISABLED: 'true' };
});
afterAll(() => t.close());

/** A node file as the sweep reads it (the app's own S3 run store); undefined if there is none. */
const read = (runId: string, rank: number) => t.app().runs.readNode(runId, rank);

/** The node file as the watchdog parses it; fails the test if the watchdog would not accept it. */
async function node(runId: string, rank: number): Promise<Record<string, unknown>> {
  const bytes = await read(runId, rank);
  expect(bytes).toBeDefined();
  const parsed = parseNodeFile(bytes!, rank);
  if (!parsed.ok) throw new Error(parsed.problem);
  expect(parsed.problems).toEqual([]);
  return parsed.value;
}

const TORCHRUN_NODE_2 = {
  RANK: '16',
  LOCAL_RANK: '0',
  GROUP_RANK: '2',
  LOCAL_WORLD_SIZE: '8',
  WORLD_SIZE: '32',
};

describe('trainwatch node-heartbeat', () => {
  it('says plainly that it sends no stacks (only the Python client can see the training threads)', async () => {
    const out: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
    try {
      expect(await nodeHeartbeat(['--help'])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    expect(out.join('')).toMatch(/It sends no stacks \(protocol v1\.2's stacks\/\{node_rank\}\.json\)/);
  });

  it("writes this node's file from torchrun's environment, with the GPUs nvidia-smi reads", async () => {
    const now = new Date('2026-01-02T03:04:05.000Z');
    const code = await nodeHeartbeat(
      ['--run-id', 'nd-1', '--step', '5200', '--instance-id', 'i-0abc1234def567890'],
      {
        env: { ...env, ...TORCHRUN_NODE_2 },
        s3,
        now: () => now,
        gpus: stub('healthy'),
        hostname: () => 'ip-10-0-1-23',
      },
    );
    expect(code).toBe(0);
    const n = await node('nd-1', 2);
    expect(n).toMatchObject({
      node_rank: 2,
      nodes: 4,
      instance_id: 'i-0abc1234def567890',
      hostname: 'ip-10-0-1-23',
      last_updated: '2026-01-02T03:04:05.000Z',
      step: 5200,
    });
    expect(n.gpus).toHaveLength(8);
    expect((n.gpus as unknown[])[7]).toEqual({
      index: 7,
      util: 98,
      mem_used_mib: 71091,
      mem_total_mib: 81559,
      temp_c: 68,
      power_w: 702,
      ecc_uncorrected: 0,
    });
    expect(n).not.toHaveProperty('step_time_s'); // nothing to measure against yet
  });

  it('measures the step time against the last node file', async () => {
    const at = (s: number) => () => new Date(Date.UTC(2026, 0, 2, 3, 0, s));
    const base = { env: { ...env, NODE_RANK: '1', NNODES: '2', LOCAL_RANK: '0' }, s3, gpus: stub('healthy') };
    await nodeHeartbeat(['--run-id', 'nd-2', '--step', '100'], { ...base, now: at(0) });
    await nodeHeartbeat(['--run-id', 'nd-2', '--step', '160', '--tokens-per-s', '9000.5'], {
      ...base,
      now: at(30),
    });
    expect(await node('nd-2', 1)).toMatchObject({ step: 160, step_time_s: 0.5, tokens_per_s: 9000.5 });
    await nodeHeartbeat(['--run-id', 'nd-2', '--step', '160'], { ...base, now: at(59) });
    expect(await node('nd-2', 1)).not.toHaveProperty('step_time_s'); // no step since: no step time claimed
  });

  it('writes nothing from a process that is not its node’s local rank 0', async () => {
    const code = await nodeHeartbeat(['--run-id', 'nd-3'], {
      env: { ...env, ...TORCHRUN_NODE_2, RANK: '19', LOCAL_RANK: '3' },
      s3,
      gpus: stub('healthy'),
    });
    expect(code).toBe(0);
    expect(await read('nd-3', 2)).toBeUndefined();
  });

  it.each([
    ['xid79', { gpus: expect.arrayContaining([{ index: 3, error: 'GPU requires reset' }]) }],
    ['nodriver', { gpu_error: expect.stringMatching(/^nvidia-smi exit 9: NVIDIA-SMI has failed/) }],
    ['nodevices', { gpu_error: 'nvidia-smi exit 6: No devices were found' }],
    ['na', { gpus: [{ index: 0, util: 93, mem_used_mib: 20110, mem_total_mib: 23028, temp_c: 58 }] }],
  ])('reports the %s scenario as evidence and still beats', async (scenario, expected) => {
    const runId = `nd-${scenario}`;
    expect(await nodeHeartbeat(['--run-id', runId], { env, s3, gpus: stub(scenario) })).toBe(0);
    expect(await node(runId, 0)).toMatchObject({ node_rank: 0, nodes: 1, ...expected });
  });

  it('has no GPU telemetry and no complaint on a node without nvidia-smi', async () => {
    expect(await sampleGpus(join(STUBS, 'no-such-dir', 'nvidia-smi'))).toEqual({});
    await nodeHeartbeat(['--run-id', 'nd-cpu'], {
      env,
      s3,
      gpus: () => sampleGpus('/nonexistent/nvidia-smi'),
    });
    const n = await node('nd-cpu', 0);
    expect(n).not.toHaveProperty('gpus');
    expect(n).not.toHaveProperty('gpu_error');
  });

  it('refuses what the watchdog would drop or reject, and writes nothing', async () => {
    const deps = { env, s3, gpus: stub('healthy') };
    await expect(
      nodeHeartbeat(['--run-id', 'nd-bad', '--instance-id', "i-1'; reboot"], deps),
    ).rejects.toThrow(/instance_id "i-1'; reboot" is not a safe instanceId/);
    await expect(
      nodeHeartbeat(['--run-id', 'nd-bad', '--node-rank', '4', '--nodes', '4'], deps),
    ).rejects.toThrow(ConfigError);
    await expect(nodeHeartbeat(['--run-id', 'nd-bad', '--step=-3'], deps)).rejects.toThrow(/integer/);
    await expect(nodeHeartbeat(['--run-id', 'nd-bad', '--log-file', '/tmp/x.log'], deps)).rejects.toThrow(
      /--log-file is the run's log tail/,
    );
    expect(await read('nd-bad', 0)).toBeUndefined();
    expect(await read('nd-bad', 4)).toBeUndefined();
  });

  it('runs as `trainwatch node-heartbeat` under srun, with the stub nvidia-smi found on PATH', async () => {
    const r = spawnSync(
      process.execPath,
      ['bin/trainwatch.mjs', 'node-heartbeat', '--run-id', 'nd-srun', '--step', '7'],
      {
        env: {
          PATH: `${join(STUBS, 'ecc')}:${process.env.PATH}`,
          AWS_ACCESS_KEY_ID: 'testing',
          AWS_SECRET_ACCESS_KEY: 'testing',
          ...env,
          SLURM_PROCID: '56',
          SLURM_LOCALID: '0',
          SLURM_NODEID: '7',
          SLURM_NNODES: '16',
          TRAINWATCH_INSTANCE_ID: 'i-0fedcba9876543210',
        },
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const n = await node('nd-srun', 7);
    expect(n).toMatchObject({ node_rank: 7, nodes: 16, step: 7, instance_id: 'i-0fedcba9876543210' });
    expect((n.gpus as { ecc_uncorrected: number }[]).map((g) => g.ecc_uncorrected)).toEqual([
      0, 0, 0, 0, 0, 6, 0, 0,
    ]);
  });
});
