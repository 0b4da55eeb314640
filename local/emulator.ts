import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const LAUNCHER = join(dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'moto_server.py');

/** A moto server on a loopback port, owned by this process. */
export interface Emulator {
  readonly endpoint: string;
  /** Asks the emulator to print every thread's stack to its stderr (to see where it is stuck). */
  dumpThreads(): string;
  stop(): Promise<void>;
}

/** Starts moto server on a free loopback port; it exits when this process does (it watches its stdin). */
export async function startEmulator(timeoutMs = 30_000): Promise<Emulator> {
  const child = spawn('python3', [LAUNCHER, '0'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`moto server did not start in ${timeoutMs} ms\n${stderr}`)),
      timeoutMs,
    );
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /^READY (\d+)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`moto server exited with ${code} before it was ready\n${stderr}`));
    });
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    dumpThreads: () => {
      child.kill('SIGUSR1');
      return stderr;
    },
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.stdin?.end();
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });
}
