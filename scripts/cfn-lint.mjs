#!/usr/bin/env node
// Synthesizes the app exactly as `cdk deploy` would (bin/app.ts, cdk.json, cdk-nag, local esbuild, no AWS
// credentials) into a temporary folder, then runs cfn-lint (PyPI) on every template. Installs cfn-lint when
// python3 cannot import it. Exit status: non-zero on a synth failure or on any cfn-lint error or warning.
//   node scripts/cfn-lint.mjs [extra cdk context, e.g. -c trainwatch:config=trainwatch.yaml]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SPEC = 'cfn-lint>=1.20,<2';
// W3005: aws-cdk-lib gives each function an explicit DependsOn on its role that it also reads with GetAtt;
// redundant, never wrong. Ignored by id so that every other warning still fails.
const IGNORED = ['W3005'];

function importable() {
  return spawnSync('python3', ['-c', 'import cfnlint'], { stdio: 'ignore' }).status === 0;
}

if (!importable()) {
  console.log(`trainwatch: installing ${SPEC}...`);
  const attempts = [
    ['-m', 'pip', 'install', '--quiet', SPEC],
    ['-m', 'pip', 'install', '--quiet', '--user', SPEC],
    ['-m', 'pip', 'install', '--quiet', '--user', '--break-system-packages', SPEC],
  ];
  const ok = attempts.some(
    (args) => spawnSync('python3', args, { stdio: 'inherit' }).status === 0 && importable(),
  );
  if (!ok) {
    console.error(`trainwatch: could not install ${SPEC}; install it with: python3 -m pip install '${SPEC}'`);
    process.exit(1);
  }
}

/** Synthesizes into `out` and lints; returns the exit status. */
function synthAndLint(out) {
  const env = { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' };
  // No credentials needed: the stack is environment-agnostic unless the config names an account.
  for (const k of ['AWS_PROFILE', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'])
    delete env[k];
  const cdk = join(ROOT, 'node_modules', '.bin', 'cdk');
  const synth = spawnSync(cdk, ['synth', '--quiet', '--no-notices', '-o', out, ...process.argv.slice(2)], {
    cwd: ROOT,
    env,
    stdio: 'inherit',
  });
  if (synth.status !== 0) {
    console.error('trainwatch: cdk synth failed');
    return synth.status ?? 1;
  }
  const templates = readdirSync(out)
    .filter((f) => f.endsWith('.template.json'))
    .map((f) => join(out, f));
  if (templates.length === 0) {
    console.error(`trainwatch: cdk synth wrote no template to ${out}`);
    return 1;
  }
  // `python3 -m cfnlint` has no __main__ in cfn-lint 1.x: call its console entry point.
  const lint = spawnSync(
    'python3',
    ['-c', 'from cfnlint.runner import main; main()', '--ignore-checks', ...IGNORED, '--', ...templates],
    { stdio: 'inherit' },
  );
  if (lint.status === 0)
    console.log(`cfn-lint: ${templates.length} template(s) clean (ignored: ${IGNORED.join(', ')})`);
  return lint.status ?? 1;
}

const out = mkdtempSync(join(tmpdir(), 'trainwatch-synth-'));
let status = 1;
try {
  status = synthAndLint(out);
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exit(status);
