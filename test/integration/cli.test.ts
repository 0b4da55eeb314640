import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSweep } from '../../lambdas/handlers/sweep.js';
import { metadata, progress, type TestEnvironment, testEnvironment } from '../support/environment.js';

let t: TestEnvironment;
beforeEach(async () => {
  t = await testEnvironment();
});
afterEach(() => t.close());

function cli(args: string[], env: Record<string, string | undefined>) {
  const r = spawnSync(process.execPath, ['bin/trainwatch.mjs', ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      ...env,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('trainwatch CLI', () => {
  it('finds ended runs: status --ended lists them, status RUN shows where its files went, classify --run reads them', async () => {
    await t.put('cli-done', 'metadata', metadata('cli-done'));
    await t.put('cli-fail', 'metadata', metadata('cli-fail'));
    await t.put(
      'cli-fail',
      'error',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
    );
    await t.put('cli-done', 'complete', '{}');
    await t.put('cli-live', 'metadata', metadata('cli-live'));
    const now = Date.now();
    await runSweep(t.app(), now);
    expect((await runSweep(t.app(), now + 2 * 60 * 60_000)).ended).toBe(2);

    const live = cli(['status'], t.env);
    expect(live.stdout).toContain('cli-live');
    expect(live.stdout).not.toContain('cli-done');
    const ended = cli(['status', '--ended', '--json'], t.env);
    expect(ended.code).toBe(0);
    expect(
      JSON.parse(ended.stdout)
        .map((e: { runId: string }) => e.runId)
        .sort(),
    ).toEqual(['cli-done', 'cli-fail']);
    expect(JSON.parse(cli(['status', '--ended', '--limit', '1', '--json'], t.env).stdout)).toHaveLength(1);
    expect(cli(['status', '--ended', '--limit', '0'], t.env).code).toBe(2);

    const one = cli(['status', 'cli-fail'], t.env);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(
      new RegExp(`files: s3://${t.env.TRAINWATCH_BUCKET}/trainwatch-ended/cli-fail/\\S+/ \\(ended \\d`),
    );
    expect(one.stdout).toMatch(/ended: 2 file\(s\) moved to trainwatch-ended\/cli-fail\//);
    const classified = cli(['classify', '--run', 'cli-fail'], t.env);
    expect(classified.stderr).toBe('');
    expect(JSON.parse(classified.stdout)).toMatchObject({ error_type: 'oom' });
  });

  it('sweeps with --now and prints status --json in the stable shape', async () => {
    await t.put('cli-run', 'metadata', metadata('cli-run'));
    await t.put('cli-run', 'progress', progress(42, 100));
    const swept = cli(['sweep', '--now', new Date().toISOString()], t.env);
    expect(swept.stderr).toBe('');
    expect(swept.stdout).toMatch(/swept 1 runs .*RUNNING 1/);
    const later = cli(['sweep', '--now', new Date(Date.now() + 11 * 60_000).toISOString()], t.env);
    expect(later.stdout).toContain('cli-run: RUNNING -> TIMED_OUT');

    const status = cli(['status', '--json'], t.env);
    expect(status.code).toBe(0);
    const rows = JSON.parse(status.stdout);
    expect(rows).toEqual([
      {
        run_id: 'cli-run',
        state: 'TIMED_OUT',
        reason: expect.stringMatching(/^no heartbeat for 11m/),
        error_type: null,
        attempt: 1,
        step: 42,
        total_steps: 100,
        learning_rate: null,
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        acknowledged_by: null,
        rate: null,
        baseline: null,
        rate_unit: null,
        gpu_util: null,
        health: {},
        ended_at: null,
        files: `s3://${t.env.TRAINWATCH_BUCKET}/training-runs/cli-run/`,
        runs_on: 'i-0123456789abcdef0',
        // a v1 writer reports no cadence: the fixed defaults hold
        thresholds: {
          stall_ms: 30 * 60_000,
          learned_stall_ms: null,
          stale_ms: 10 * 60_000,
          text: 'stall 30m (fixed until the run has a history); stale 10m',
        },
      },
    ]);
  });

  it('shows the learning rate where the run reports one (status RUN_ID and --json), as its alerts do', async () => {
    await t.put('lr-run', 'metadata', metadata('lr-run'));
    await t.put('lr-run', 'progress', progress(42, 100, { learning_rate: 0.000299999 }));
    await t.put('no-lr', 'metadata', metadata('no-lr'));
    await t.put('no-lr', 'progress', progress(7, 100));
    await runSweep(t.app(), Date.now());

    const [row] = JSON.parse(cli(['status', 'lr-run', '--json'], t.env).stdout);
    expect(row).toMatchObject({ step: 42, total_steps: 100, learning_rate: 0.000299999 });
    const text = cli(['status', 'lr-run'], t.env).stdout;
    expect(text).toMatch(/^progress: step 42 \/ 100 \(42%\)\nloss: 1\.5\nlearning rate: 0\.0003$/m);
    const without = cli(['status', 'no-lr'], t.env).stdout;
    expect(without).toMatch(/^progress: step 7 \/ 100 \(7%\)\nloss: 1\.5$/m);
    expect(without).not.toContain('learning rate');
  });

  it('shows a multi-node run with its nodes (status RUN_ID and --json)', async () => {
    await t.put('mn-run', 'metadata', metadata('mn-run', { nodes: 3 }));
    await t.put('mn-run', 'progress', progress(42, 100));
    for (const rank of [0, 1])
      await t.putNode(
        'mn-run',
        rank,
        JSON.stringify({
          node_rank: rank,
          nodes: 3,
          instance_id: `i-000000000000000${rank}a`,
          hostname: `ip-10-0-0-${rank}`,
          step: 42,
        }),
      );
    expect(cli(['sweep'], t.env).code).toBe(0);
    const json = JSON.parse(cli(['status', 'mn-run', '--json'], t.env).stdout);
    expect(json[0].nodes).toEqual([
      expect.objectContaining({
        node_rank: 0,
        instance_id: 'i-0000000000000000a',
        hostname: 'ip-10-0-0-0',
        stale: false,
        finding: null,
      }),
      expect.objectContaining({ node_rank: 1, instance_id: 'i-0000000000000001a', stale: false }),
      expect.objectContaining({
        node_rank: 2,
        instance_id: null,
        last_seen: null,
        stale: true,
        finding: 'never reported',
      }),
    ]);
    const text = cli(['status', 'mn-run'], t.env).stdout;
    expect(text).toMatch(/^nodes \(2 of 3 beating\):$/m);
    expect(text).toMatch(/^1\s+i-0000000000000001a\s+ip-10-0-0-1\s+\d+s ago\s+42/m);
  });

  it('acknowledges, silences, lists and unsilences from the command line', async () => {
    await t.put('cli-ack', 'metadata', metadata('cli-ack'));
    const now = Date.now();
    await runSweep(t.app(), now);
    const healthy = cli(['ack', 'cli-ack', '--by', 'ana'], t.env);
    expect(healthy.code).toBe(1);
    expect(healthy.stderr).toContain('run cli-ack is RUNNING: there is nothing to acknowledge');
    await runSweep(t.app(), now + 11 * 60_000);
    const ack = cli(['ack', 'cli-ack', '--by', 'ana', '--note', 'on it'], t.env);
    expect(ack.stderr).toBe('');
    expect(ack.stdout).toMatch(/^acknowledged cli-ack \(TIMED_OUT\) as ana/);
    const status = cli(['status'], t.env);
    expect(status.stdout).toMatch(/cli-ack .*TIMED_OUT .*\[ack: ana\]/);

    const made = cli(['silence', '--all', '--for', '2h', '--reason', 'cluster drain', '--by', 'bo'], t.env);
    const id = /silence (s-[0-9a-f]{8}) on all/.exec(made.stdout)?.[1];
    expect(id).toBeDefined();
    expect(cli(['silences'], t.env).stdout).toMatch(
      new RegExp(`^${id}  all .* (1h 59m|2h) left  by bo: cluster drain`),
    );
    expect(cli(['unsilence', id!, '--by', 'bo'], t.env).stdout).toContain(`silence ${id} ended`);
    expect(cli(['silences'], t.env).stdout).toContain('removed by bo');
  }, 120_000);

  it('refuses setup-local without an emulator endpoint and names a bad setting', () => {
    const noEndpoint = cli(['setup-local'], { ...t.env, AWS_ENDPOINT_URL: undefined });
    expect(noEndpoint.code).toBe(1);
    expect(noEndpoint.stderr).toMatch(/AWS_ENDPOINT_URL/);
    const bad = cli(['sweep'], { ...t.env, TRAINWATCH_STALE_AFTER: 'soon' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('TRAINWATCH_STALE_AFTER="soon" is not a duration');
    const missing = cli(['status'], { ...t.env, TRAINWATCH_TABLE: undefined });
    expect(missing.stderr).toContain('TRAINWATCH_TABLE is required');
  });

  it('creates resources idempotently with setup-local', () => {
    const env = {
      ...t.env,
      TRAINWATCH_BUCKET: `${t.env.TRAINWATCH_BUCKET}-b`,
      TRAINWATCH_TABLE: `${t.env.TRAINWATCH_TABLE}-b`,
    };
    expect(cli(['setup-local'], env).code).toBe(0);
    const again = cli(['setup-local'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`created table ${env.TRAINWATCH_TABLE}`);
  });
});
