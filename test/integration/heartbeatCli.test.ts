import { spawnSync } from 'node:child_process';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as complete } from '../../bin/commands/complete.js';
import { run as error } from '../../bin/commands/error.js';
import { run as heartbeat } from '../../bin/commands/heartbeat.js';
import { run as progress } from '../../bin/commands/progress.js';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import type { RunFileName } from '../../lambdas/core/protocol/files.js';
import { runSweep } from '../../lambdas/handlers/sweep.js';
import { type TestEnvironment, testEnvironment } from '../support/environment.js';

let t: TestEnvironment;
let s3: S3Client;
let env: Record<string, string>;
beforeAll(async () => {
  t = await testEnvironment();
  s3 = t.app().clients.s3;
  env = { ...t.env, AWS_EC2_METADATA_DISABLED: 'true' };
});
afterAll(() => t.close());

/** A run file's text as the sweep reads it (the app's own S3 run store); undefined if there is none. */
async function read(runId: string, file: RunFileName): Promise<string | undefined> {
  const bytes = await t.app().runs.read(runId, file);
  return bytes && new TextDecoder().decode(bytes);
}

const readJson = async (runId: string, file: RunFileName) => JSON.parse((await read(runId, file)) ?? 'null');

/** Runs a command in-process against the test environment. */
const deps = (extra: { stdin?: string; now?: Date } = {}) => ({
  env,
  s3,
  ...(extra.stdin === undefined ? {} : { stdin: async () => extra.stdin! }),
  ...(extra.now ? { now: () => extra.now! } : {}),
});

function cli(args: string[], extraEnv: Record<string, string>, input?: string) {
  const r = spawnSync(process.execPath, ['bin/trainwatch.mjs', ...args], {
    env: {
      PATH: process.env.PATH,
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      ...extraEnv,
    },
    input,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('trainwatch heartbeat|progress|error|complete', () => {
  it("starts a new attempt: clears the last one's _error and _complete and counts the attempt up", async () => {
    await t.put('sh-1', 'metadata', JSON.stringify({ run_id: 'sh-1', status: 'failed', attempt: 2 }));
    await t.put('sh-1', 'error', 'RuntimeError: boom');
    await t.put('sh-1', 'complete', '{}');
    expect(
      await heartbeat(['--run-id', 'sh-1', '--start', '--job-name', 'bash-job', '--phase', 'setup'], deps()),
    ).toBe(0);
    const m = await readJson('sh-1', 'metadata');
    expect(m).toMatchObject({
      run_id: 'sh-1',
      status: 'starting',
      attempt: 3,
      job_name: 'bash-job',
      phase: 'setup',
    });
    expect(Date.parse(m.started_at)).toBeGreaterThan(0);
    expect(await read('sh-1', 'error')).toBeUndefined();
    expect(await read('sh-1', 'complete')).toBeUndefined();
  });

  it('keeps the fields already in metadata.json on a plain heartbeat', async () => {
    await heartbeat(
      ['--run-id', 'sh-2', '--start', '--job-name', 'keep-me', '--stale-minutes', '45'],
      deps(),
    );
    await heartbeat(['--run-id', 'sh-2', '--phase', 'checkpointing', '--set', 'tags={"team":"nlp"}'], deps());
    expect(await readJson('sh-2', 'metadata')).toMatchObject({
      status: 'running',
      phase: 'checkpointing',
      job_name: 'keep-me',
      stale_minutes: 45,
      attempt: 1,
      tags: { team: 'nlp' },
    });
  });

  it('refuses metadata the watchdog would reject, and writes nothing', async () => {
    await expect(heartbeat(['--run-id', 'sh-3', '--stale-minutes', '0'], deps())).rejects.toThrow(
      ConfigError,
    );
    await expect(heartbeat(['--run-id', '../escape'], deps())).rejects.toThrow(/run id/);
    expect(await read('sh-3', 'metadata')).toBeUndefined();
  });

  it('writes progress with totals, loss and extra metrics', async () => {
    const now = new Date('2026-01-02T03:04:05.000Z');
    const args = [
      '120',
      '--run-id',
      'sh-4',
      '--total-steps',
      '1000',
      '--loss',
      '0.42',
      '--metric',
      'tok_s=9000',
    ];
    expect(await progress(args, deps({ now }))).toBe(0);
    expect(await readJson('sh-4', 'progress')).toEqual({
      step: 120,
      total_steps: 1000,
      loss: 0.42,
      tok_s: 9000,
      last_updated: '2026-01-02T03:04:05.000Z',
    });
    await expect(progress(['--step', '1.5', '--run-id', 'sh-4'], deps())).rejects.toThrow(/integer/);
    await expect(progress(['--run-id', 'sh-4', '--loss', 'nan', '3'], deps())).rejects.toThrow(/number/);
  });

  it('writes _error from stdin and marks the run failed; --preempted says preempted', async () => {
    await heartbeat(['--run-id', 'sh-5', '--start'], deps());
    expect(
      await error(['--run-id', 'sh-5'], deps({ stdin: 'Traceback...\nRuntimeError: CUDA out of memory.\n' })),
    ).toBe(0);
    expect(await read('sh-5', 'error')).toBe('Traceback...\nRuntimeError: CUDA out of memory.\n');
    expect(await readJson('sh-5', 'metadata')).toMatchObject({ status: 'failed', attempt: 1 });

    await error(['--run-id', 'sh-6', '--preempted'], deps({ stdin: '' }));
    expect(await read('sh-6', 'error')).toMatch(/^Preempted: received SIGTERM/);
    expect((await readJson('sh-6', 'metadata')).status).toBe('preempted');
  });

  it('writes a JSON summary to _complete and marks the run completed, for good', async () => {
    await heartbeat(['--run-id', 'sh-7', '--start', '--attempt', '2'], deps());
    await complete(['--run-id', 'sh-7', '--summary', '{"eval_acc":0.91}', '--set', 'steps=1000'], deps());
    expect(await readJson('sh-7', 'complete')).toMatchObject({
      run_id: 'sh-7',
      status: 'completed',
      attempt: 2,
      eval_acc: 0.91,
      steps: 1000,
    });
    expect((await readJson('sh-7', 'metadata')).status).toBe('completed');
    // A background heartbeat loop that outlives `complete` must not turn the run back to running.
    await heartbeat(['--run-id', 'sh-7'], deps());
    expect((await readJson('sh-7', 'metadata')).status).toBe('completed');
    await expect(complete(['--run-id', 'sh-7', '--summary', '[1]'], deps())).rejects.toThrow(/JSON object/);
  });

  it('is read by the sweep as RUNNING, then SUCCEEDED; an OOM message as FAILED (oom)', async () => {
    await heartbeat(['--run-id', 'sh-ok', '--start'], deps());
    await heartbeat(['--run-id', 'sh-bad', '--start'], deps());
    await progress(['10', '--run-id', 'sh-ok', '--total-steps', '100'], deps());
    await progress(['10', '--run-id', 'sh-bad', '--total-steps', '100'], deps());
    await runSweep(t.app(), Date.now());
    expect((await t.app().states.get('sh-ok'))?.state).toBe('RUNNING');

    await complete(['--run-id', 'sh-ok'], deps());
    await error(
      ['--run-id', 'sh-bad', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'],
      deps(),
    );
    await runSweep(t.app(), Date.now());
    const states = t.app().states;
    expect((await states.get('sh-ok'))?.state).toBe('SUCCEEDED');
    expect(await states.get('sh-bad')).toMatchObject({ state: 'FAILED', errorType: 'oom' });
  });

  it('runs as `trainwatch error` with the message piped in, and fails in one line when S3 is down', () => {
    const ok = cli(['error', '--run-id', 'sh-8'], env, 'NCCL error: unhandled system error\n');
    expect(ok).toMatchObject({ code: 0, stderr: '' });

    const down = cli(['heartbeat', '--run-id', 'sh-8'], { ...env, AWS_ENDPOINT_URL: 'http://127.0.0.1:9' });
    expect(down.code).toBe(1);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toMatch(/^trainwatch heartbeat: could not reach s3:\/\/.*metadata\.json/);
  });
});
