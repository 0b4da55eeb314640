import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDiagnosis, summarize } from '../../lambdas/core/remediation/diagnosis/index.js';
import { diagnoseDocument, restartDocument } from '../../lambdas/ssm/documents.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIAGNOSE = join(ROOT, 'lambdas/ssm/diagnose.sh');
const RESTART = join(ROOT, 'lambdas/ssm/restart.sh');
const STUBS = join(ROOT, 'test/fixtures/bin');
const tmp = mkdtempSync(join(tmpdir(), 'tw-ssm-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

function diagnose(scenario: string | null, env: Record<string, string> = {}): string {
  const PATH = scenario ? `${join(STUBS, scenario)}:${process.env.PATH}` : process.env.PATH!;
  return execFileSync('bash', [DIAGNOSE], { env: { PATH, TW_RUN_ID: 'run-1', ...env }, encoding: 'utf8' });
}

/** A long-running process whose command line carries a unique marker, like a training job would. */
function fakeTraining(marker: string): ChildProcess {
  const child = spawn('bash', ['-c', `exec -a "python train.py --tag ${marker}" sleep 120`], {
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('diagnose.sh against stub nvidia-smi / dmesg', () => {
  it.each([
    ['healthy', /8 GPUs busy/, undefined],
    ['idle', /8 GPUs idle \(0% utilisation/, undefined],
    ['err', /GPU 2: nvidia-smi reports "Unknown Error"/, /GPU 2/],
    ['xid79', /^GPU 3: Xid 79, fallen off the bus — replace the node$/, /GPU 3: Xid 79/],
    ['ecc', /GPU 5: 6 uncorrectable ECC errors/, /GPU 5/],
    ['oom', /host OOM killer fired: Out of memory: Killed process 25315 \(python3\)/, undefined],
    ['nodevices', /no GPU data: nvidia-smi exit 6: No devices were found/, undefined],
    ['nodriver', /GPU driver not responding .*couldn't communicate with the NVIDIA driver/, /driver/],
  ])('%s', (scenario, line, failure) => {
    const out = diagnose(scenario);
    expect(out.trimEnd().split('\n').at(-1)).toBe('end=ok');
    const s = summarize(parseDiagnosis(out));
    expect(s.lines.some((l) => line.test(l))).toBe(true);
    if (failure) expect(s.gpuFailure).toMatch(failure);
    else expect(s.gpuFailure).toBeUndefined();
  });

  it('reports a restricted kernel log as a fact and still ends cleanly', () => {
    const out = diagnose('nodriver');
    expect(out).toContain('kernel.problem=dmesg: read kernel buffer failed: Operation not permitted');
    expect(out).toMatch(/end=ok\n$/);
  });

  it('works without nvidia-smi, with missing paths, and says which paths are missing', () => {
    const out = diagnose(null, {
      TW_CHECKPOINT_DIR: '/nonexistent/ckpt',
      TW_LOG_PATH: '/nonexistent/train.log',
    });
    const d = parseDiagnosis(out);
    if (!existsSync('/usr/bin/nvidia-smi')) expect(d.gpuProblem).toBe('nvidia-smi not installed');
    expect(d.missingPaths).toEqual(['/nonexistent/ckpt', '/nonexistent/train.log']);
    expect(d.disks.map((x) => x.path)).toContain('/nonexistent/ckpt');
    expect(d.truncated).toBe(false);
  });

  it('finds the training process by pattern and by PID file, and says when it is gone', async () => {
    const marker = `tw${process.pid}a`;
    const child = fakeTraining(marker);
    await until(
      () => execFileSync('bash', ['-c', `pgrep -f ${marker} || true`], { encoding: 'utf8' }).trim() !== '',
    );
    const byPattern = parseDiagnosis(diagnose('healthy', { TW_PROCESS_PATTERN: `train.py --tag ${marker}` }));
    expect(byPattern).toMatchObject({ processAlive: true, processSource: 'pattern', pids: [child.pid] });
    const pidFile = join(tmp, 'train.pid');
    writeFileSync(pidFile, `${child.pid}\n`);
    expect(parseDiagnosis(diagnose('healthy', { TW_PID_FILE: pidFile })).processAlive).toBe(true);
    child.kill('SIGKILL');
    await until(() => child.exitCode !== null || child.signalCode !== null);
    expect(parseDiagnosis(diagnose('healthy', { TW_PID_FILE: pidFile })).processAlive).toBe(false);
    expect(
      parseDiagnosis(diagnose('healthy', { TW_PROCESS_PATTERN: `train.py --tag ${marker}` })).processAlive,
    ).toBe(false);
  });

  it('does not take another pgrep searching for the same pattern for the training process', async () => {
    const marker = `tw${process.pid}p`;
    // A process named pgrep whose command line holds the pattern: a second diagnosis running at the same time.
    const fake = join(tmp, 'pgrep');
    copyFileSync(execFileSync('bash', ['-c', 'command -v sleep'], { encoding: 'utf8' }).trim(), fake);
    const other = spawn('bash', ['-c', `exec -a "pgrep -f -- train.py --tag ${marker}" ${fake} 120`], {
      stdio: 'ignore',
    });
    children.push(other);
    await until(
      () => execFileSync('bash', ['-c', `pgrep -f ${marker} || true`], { encoding: 'utf8' }).trim() !== '',
    );
    const d = parseDiagnosis(diagnose('healthy', { TW_PROCESS_PATTERN: `train.py --tag ${marker}` }));
    expect(d.processAlive).toBe(false);
  });

  it('dumps the training process’s Python stacks with py-spy when the instance has it, and says so when not', async () => {
    const marker = `tw${process.pid}s`;
    const child = fakeTraining(marker);
    await until(
      () => execFileSync('bash', ['-c', `pgrep -f ${marker} || true`], { encoding: 'utf8' }).trim() !== '',
    );
    const run = (path: string, fixture = 'train') =>
      parseDiagnosis(
        execFileSync('bash', [DIAGNOSE], {
          env: {
            PATH: `${path}${join(STUBS, 'healthy')}:${process.env.PATH}`,
            TW_RUN_ID: 'run-1',
            TW_PROCESS_PATTERN: `train.py --tag ${marker}`,
            TW_PYSPY_FIXTURE: fixture,
          },
          encoding: 'utf8',
        }),
      );
    const d = run(`${join(ROOT, 'test/fixtures/pyspy/bin')}:`);
    expect(d.truncated).toBe(false);
    expect(d.stacks).toHaveLength(1);
    expect(d.stacks![0]).toMatchObject({ pid: child.pid });
    expect(d.stacks![0]!.lines[3]).toBe('Thread 14910 (idle): "MainThread"');
    expect(summarize(d).lines).toContain(
      'training process (py-spy): main thread in `threading.wait` (queue.get, dataset.py:6)',
    );
    expect(summarize(run(`${join(ROOT, 'test/fixtures/pyspy/bin')}:`, 'sleepy')).lines).toContain(
      'training process (py-spy): main thread in `wait_for_data` (sleepy.py:3)',
    );
    // Without py-spy on the PATH (the stubs' folder has none): a fact, never a failure.
    const none = run('');
    expect(none.stacks).toBeUndefined();
    expect(summarize(none).lines.join('\n')).toMatch(/no Python stack: py-spy not installed/);
  });

  it('tells the NCCL transport from the log and returns its tail', () => {
    const log = join(tmp, 'train.log');
    writeFileSync(
      log,
      'h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\nh:1:1 [0] NCCL INFO Using network Socket\nstep 10 loss 2.1\n',
    );
    const d = parseDiagnosis(diagnose('healthy', { TW_LOG_PATH: log, TW_TAIL_LINES: '2' }));
    expect(d.ncclTransport).toBe('socket');
    expect(d.logTail).toEqual(['h:1:1 [0] NCCL INFO Using network Socket', 'step 10 loss 2.1']);
  });

  it('keeps every output line a single fact even when a log line holds control characters', () => {
    const log = join(tmp, 'evil.log');
    writeFileSync(log, 'a\rfake=1\u0007\nend=ok injected\n');
    const out = diagnose('healthy', { TW_LOG_PATH: log });
    expect(out).toContain('log=afake=1\n');
    expect(out.match(/^end=/gm)).toEqual(['end=']);
  });
});

describe('restart.sh', () => {
  function restart(env: Record<string, string>): { code: number; out: string } {
    try {
      return {
        code: 0,
        out: execFileSync('bash', [RESTART], {
          env: { PATH: process.env.PATH!, TW_LOG_DIR: tmp, TW_RUN_ID: 'run-1', TW_ATTEMPT: '2', ...env },
          encoding: 'utf8',
        }),
      };
    } catch (e) {
      const err = e as { status: number; stdout: string };
      return { code: err.status, out: err.stdout };
    }
  }

  function job(name: string): { command: string; result: string } {
    const dir = join(tmp, name);
    mkdirSync(dir, { recursive: true });
    const result = join(dir, 'result');
    writeFileSync(
      join(dir, 'job.sh'),
      `printf '%s|%s|%s\\n' "$*" "$TRAINWATCH_ATTEMPT" "$TRAINWATCH_RESUME_FROM" > ${result}\n`,
    );
    return { command: `/bin/sh ${join(dir, 'job.sh')} --resume-from`, result };
  }

  it('starts the command with the highest step_N checkpoint as its argument', async () => {
    const ckpt = join(tmp, 'ckpt-steps');
    for (const d of ['step_100', 'step_2000', 'step_30', 'notes'])
      mkdirSync(join(ckpt, d), { recursive: true });
    const { command, result } = job('steps');
    const { code, out } = restart({ TW_COMMAND: command, TW_CHECKPOINT_DIR: ckpt });
    expect(code).toBe(0);
    expect(out).toContain(`restart.resume_from=${ckpt}/step_2000`);
    await until(() => existsSync(result));
    expect(readFileSync(result, 'utf8').trim()).toBe(`--resume-from ${ckpt}/step_2000|2|${ckpt}/step_2000`);
  });

  it('follows a latest link, and DeepSpeed-style latest files', async () => {
    const ckpt = join(tmp, 'ckpt-latest');
    mkdirSync(join(ckpt, 'step_5'), { recursive: true });
    mkdirSync(join(ckpt, 'step_9'), { recursive: true });
    symlinkSync(join(ckpt, 'step_5'), join(ckpt, 'latest'));
    expect(restart({ TW_COMMAND: job('latest').command, TW_CHECKPOINT_DIR: ckpt }).out).toContain(
      `resume_from=${ckpt}/step_5`,
    );
    const ds = join(tmp, 'ckpt-ds');
    mkdirSync(join(ds, 'global_step300'), { recursive: true });
    writeFileSync(join(ds, 'latest'), 'global_step300\n');
    expect(restart({ TW_COMMAND: job('ds').command, TW_CHECKPOINT_DIR: ds }).out).toContain(
      `resume_from=${ds}/global_step300`,
    );
  });

  it('stops a hung previous attempt before starting the new one', async () => {
    const marker = `tw${process.pid}b`;
    const hung = fakeTraining(marker);
    await until(
      () => execFileSync('bash', ['-c', `pgrep -f ${marker} || true`], { encoding: 'utf8' }).trim() !== '',
    );
    const ckpt = join(tmp, 'ckpt-hung');
    mkdirSync(join(ckpt, 'step_1'), { recursive: true });
    const { code, out } = restart({
      TW_COMMAND: job('hung').command,
      TW_PROCESS_PATTERN: `--tag ${marker}`,
      TW_STOP_TIMEOUT: '5',
      TW_CHECKPOINT_DIR: ckpt,
    });
    expect(code).toBe(0);
    expect(out).toContain(`restart.stopped=${hung.pid}`);
    await until(() => hung.exitCode !== null || hung.signalCode !== null);
  });

  it('refuses to start over from step 0 without a checkpoint unless resume is allow_scratch', async () => {
    const empty = join(tmp, 'ckpt-empty');
    mkdirSync(empty, { recursive: true });
    const refused = restart({ TW_COMMAND: job('none').command, TW_CHECKPOINT_DIR: empty });
    expect(refused.code).toBe(3);
    expect(refused.out).toContain(`restart.no_checkpoint=${empty}`);
    expect(refused.out).toContain(`restart.refused=no checkpoint under ${empty}`);
    const { command, result } = job('scratch');
    const scratch = restart({ TW_COMMAND: command, TW_CHECKPOINT_DIR: empty, TW_RESUME: 'allow_scratch' });
    expect(scratch.code).toBe(0);
    expect(scratch.out).toContain(`restart.from_scratch=${empty}`);
    await until(() => existsSync(result));
    expect(readFileSync(result, 'utf8').trim()).toBe('--resume-from|2|');
  });

  it('reports the step it resumes from and gives a node its rank, the node count and the master', async () => {
    const ckpt = join(tmp, 'ckpt-node');
    mkdirSync(join(ckpt, 'global_step5200'), { recursive: true });
    const dir = mkdtempSync(join(tmp, 'job-node'));
    const result = join(dir, 'env');
    writeFileSync(
      join(dir, 'job.sh'),
      `printf '%s|%s|%s|%s\\n' "$TRAINWATCH_NODE_RANK" "$TRAINWATCH_NNODES" "$TRAINWATCH_MASTER_ADDR" "$TRAINWATCH_EXCLUDE_HOSTS" > ${result}\n`,
    );
    const { code, out } = restart({
      TW_COMMAND: `/bin/sh ${join(dir, 'job.sh')}`,
      TW_CHECKPOINT_DIR: ckpt,
      TW_NODE_RANK: '3',
      TW_NNODES: '16',
      TW_MASTER_ADDR: 'ip-10-0-1-20',
      TW_EXCLUDE_HOSTS: 'ip-10-0-1-27',
    });
    expect(code).toBe(0);
    expect(out).toContain('restart.resume_step=5200');
    await until(() => existsSync(result));
    expect(readFileSync(result, 'utf8').trim()).toBe('3|16|ip-10-0-1-20|ip-10-0-1-27');
  });

  it.each([
    [
      'a command with shell syntax',
      { TW_COMMAND: 'python train.py; rm -rf /' },
      'invalid or missing command',
    ],
    ['a relative checkpoint path', { TW_COMMAND: '/bin/true', TW_CHECKPOINT_DIR: '../etc' }, 'invalid path'],
    ['a dot-dot path', { TW_COMMAND: '/bin/true', TW_PID_FILE: '/tmp/../etc/passwd' }, 'invalid path'],
    ['a bad attempt', { TW_COMMAND: '/bin/true', TW_ATTEMPT: '2; reboot' }, 'invalid attempt'],
    [
      'a bad master address',
      { TW_COMMAND: '/bin/true', TW_MASTER_ADDR: 'h;reboot' },
      'invalid master address',
    ],
    ['a bad node rank', { TW_COMMAND: '/bin/true', TW_NODE_RANK: '1 2' }, 'invalid node rank or count'],
  ])('refuses %s', (_, env, why) => {
    const { code, out } = restart(env);
    expect(code).toBe(2);
    expect(out).toContain(`restart.refused=${why}`);
    expect(out).not.toContain('launched');
  });
});

describe('SSM documents', () => {
  const docs = { diagnose: diagnoseDocument(), restart: restartDocument() } as Record<
    string,
    Record<string, unknown>
  >;

  it.each(Object.keys(docs))(
    '%s: schema 2.2, runShellScript, every parameter has an allowedPattern with no quote',
    (name) => {
      const doc = docs[name]! as {
        schemaVersion: string;
        parameters: Record<string, { allowedPattern: string }>;
        mainSteps: { action: string; inputs: { runCommand: string[] } }[];
      };
      expect(doc.schemaVersion).toBe('2.2');
      expect(doc.mainSteps[0]!.action).toBe('aws:runShellScript');
      for (const [param, spec] of Object.entries(doc.parameters)) {
        expect(spec.allowedPattern, param).toMatch(/^\^.*\$$/);
        for (const evil of ["x'; reboot; '", '$(reboot)', '`reboot`', 'a\nb'])
          expect(new RegExp(spec.allowedPattern).test(evil), `${param} ${evil}`).toBe(false);
      }
      // Parameters appear only in single-quoted exports; the script body has no SSM placeholders.
      const placeholders = doc.mainSteps[0]!.inputs.runCommand.filter((l) => l.includes('{{'));
      expect(placeholders.length).toBe(Object.keys(doc.parameters).length);
      for (const l of placeholders) expect(l).toMatch(/^export TW_[A-Z_]+='\{\{ [A-Za-z]+ \}\}'$/);
    },
  );

  it('runs under /bin/sh once SSM substitutes the parameters, as the agent does', () => {
    const params: Record<string, string> = {
      RunId: 'run-9',
      PidFile: '',
      ProcessPattern: '',
      CheckpointDir: '/tmp',
      LogPath: '',
      TailLines: '5',
    };
    const lines = (docs.diagnose as { mainSteps: { inputs: { runCommand: string[] } }[] }).mainSteps[0]!
      .inputs.runCommand;
    const script = lines.map((l) => l.replace(/\{\{ (\w+) \}\}/g, (_, k: string) => params[k]!)).join('\n');
    const out = execFileSync('sh', ['-c', script], {
      env: { PATH: `${join(STUBS, 'healthy')}:${process.env.PATH}` },
      encoding: 'utf8',
    });
    expect(out).toContain('run_id=run-9');
    expect(parseDiagnosis(out).gpus).toHaveLength(8);
  });
});
