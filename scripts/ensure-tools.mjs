#!/usr/bin/env node
// Makes sure the Python tools the tests and the local mode use are installed; installs what is missing:
// moto server (the local AWS emulator) and the AWS CLI (the documented bash heartbeat snippet is tested with it),
// then MiniStack in its own virtual environment (scripts/ensure-ministack.mjs).
import { spawnSync } from 'node:child_process';
import { ensureMiniStack } from './ensure-ministack.mjs';

const TOOLS = [
  {
    spec: 'moto[server]>=5.2,<6',
    probe: [
      '-c',
      'import moto, flask, flask_cors\nmajor, minor = (int(x) for x in moto.__version__.split(".")[:2])\nassert (major, minor) >= (5, 2) and major < 6',
    ],
  },
  { spec: 'awscli>=1.29', probe: ['-m', 'awscli', '--version'] },
];

const ok = (args) => spawnSync('python3', args, { stdio: 'ignore' }).status === 0;

for (const { spec, probe } of TOOLS) {
  if (ok(probe)) continue;
  console.log(`trainwatch: installing ${spec}...`);
  const installed = [[], ['--user'], ['--user', '--break-system-packages']].some(
    (extra) =>
      spawnSync('python3', ['-m', 'pip', 'install', '--quiet', ...extra, spec], { stdio: 'inherit' })
        .status === 0 && ok(probe),
  );
  if (!installed) {
    console.error(`trainwatch: could not install ${spec}; install it with: python3 -m pip install '${spec}'`);
    process.exit(1);
  }
}

ensureMiniStack();
