import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExternalRun } from './localMode.js';

const EXAMPLE = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'train.py');
const RUN_ID = 'python-example';

/** Runs examples/train.py (the real Python client) as one more watched run, when boto3 is importable. */
export async function pythonExample(
  env: Record<string, string>,
  out: (line: string) => void,
): Promise<ExternalRun[]> {
  if (spawnSync('python3', ['-c', 'import boto3'], { stdio: 'ignore' }).status !== 0) {
    out('  (python3 with boto3 not found: skipping the Python example run)');
    return [];
  }
  const child = spawn(
    'python3',
    [EXAMPLE, '--run-id', RUN_ID, '--steps', '300', '--step-time', '0.1', '--interval', '2'],
    {
      env: {
        ...process.env,
        ...env,
        TRAINWATCH_BUCKET: env.TRAINWATCH_BUCKET!,
        TRAINWATCH_INSTANCE_ID: 'i-0a1b2c3d4e5f60007',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  child.once('exit', (code, signal) => {
    if (code !== 0 && signal === null) out(`python example exited with ${code}:\n${stderr}`);
  });
  return [
    {
      runId: RUN_ID,
      story: 'examples/train.py with the Python client, completes',
      stop: () => child.kill('SIGTERM'),
    },
  ];
}
