#!/usr/bin/env node
// Makes sure moto server (the local AWS emulator) is importable by python3; installs it when missing.
import { spawnSync } from 'node:child_process';

const SPEC = 'moto[server]>=5.2,<6';
const probe = `
import moto, flask, flask_cors
major, minor = (int(x) for x in moto.__version__.split(".")[:2])
assert (major, minor) >= (5, 2) and major < 6, moto.__version__
`;

function importable() {
  return spawnSync('python3', ['-c', probe], { stdio: 'ignore' }).status === 0;
}

if (!importable()) {
  console.log(`trainwatch: installing ${SPEC} (the local AWS emulator)...`);
  const attempts = [
    ['-m', 'pip', 'install', '--quiet', SPEC],
    ['-m', 'pip', 'install', '--quiet', '--user', SPEC],
    ['-m', 'pip', 'install', '--quiet', '--user', '--break-system-packages', SPEC],
  ];
  const ok = attempts.some((args) => spawnSync('python3', args, { stdio: 'inherit' }).status === 0 && importable());
  if (!ok) {
    console.error(`trainwatch: could not install ${SPEC}; install it with: python3 -m pip install '${SPEC}'`);
    process.exit(1);
  }
}
