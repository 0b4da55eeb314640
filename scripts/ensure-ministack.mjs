#!/usr/bin/env node
// Makes sure MiniStack (the local AWS that deploys the stack and runs its Lambdas: test/deploy, `trainwatch
// local --deployed`) is installed, pinned, in its own virtual environment under .tools/ (git-ignored): it pins
// botocore, which must not replace the one moto and the AWS CLI use. `cryptography` generates its TLS certificate.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MINISTACK_VERSION = '1.5.33';
const VENV = join(dirname(fileURLToPath(import.meta.url)), '..', '.tools', 'ministack');
export const MINISTACK_PYTHON = join(VENV, 'bin', 'python');
const SPECS = [`ministack==${MINISTACK_VERSION}`, 'cryptography>=41'];
const PROBE = `import importlib.metadata as m, cryptography\nassert m.version("ministack") == "${MINISTACK_VERSION}"`;

const ok = () =>
  existsSync(MINISTACK_PYTHON) &&
  spawnSync(MINISTACK_PYTHON, ['-c', PROBE], { stdio: 'ignore' }).status === 0;

/** Installs MiniStack into .tools/ministack unless the pinned version is there; exits the process on failure. */
export function ensureMiniStack() {
  if (ok()) return;
  console.log(`trainwatch: installing ${SPECS.join(' ')} into .tools/ministack...`);
  const steps = [
    ['python3', ['-m', 'venv', '--clear', VENV]],
    [MINISTACK_PYTHON, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...SPECS]],
  ];
  for (const [cmd, args] of steps) {
    if (spawnSync(cmd, args, { stdio: 'inherit' }).status !== 0) break;
  }
  if (!ok()) {
    console.error(
      `trainwatch: could not install MiniStack; run: python3 -m venv .tools/ministack && .tools/ministack/bin/pip install ${SPECS.map((s) => `'${s}'`).join(' ')}`,
    );
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureMiniStack();
