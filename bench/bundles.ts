// Bundle size and cold-load time of each Lambda, bundled exactly as `cdk deploy` bundles them.
// Run alone: npx tsx bench/bundles.ts [runs]   (bench/run.ts calls benchBundles()).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { App } from 'aws-cdk-lib';
import type { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { parseConfig } from '../lib/config.js';
import { CLASSIFY, EKS, PROJECT_ROOT, SLACK_CHUNKS } from '../lib/functions.js';
import { TrainwatchStack } from '../lib/stack.js';
import { BUNDLES_BEFORE, TARGETS } from './before.js';

/** One function's bundle on disk. */
export interface Bundle {
  readonly name: 'sweep' | 'sentinel' | 'remediate' | 'slack';
  readonly dir: string;
  /** The entry file Lambda loads (`index.mjs`). */
  readonly file: string;
  /**
   * Its chunks: the classifier's rules (`classify.mjs`, loaded on the first failure it classifies), the Slack
   * channels (`slack-webhook.mjs`, `slack-app.mjs`, loaded on the first Slack alert) and, for remediation, the EKS
   * platform (`eks.mjs`, loaded on the first run on EKS), each its own file beside it.
   */
  readonly chunks: readonly string[];
}

/** The Slack app as the bench and the bundle test deploy it: its endpoint is a fourth function. */
export const SLACK_APP_CONFIG = {
  slack: {
    botTokenParameter: '/trainwatch/slack-bot-token',
    signingSecretParameter: '/trainwatch/slack-signing-secret',
    channel: 'C0123ABCD',
  },
};

/**
 * Synthesizes the default stack with real local-esbuild bundling into a fresh folder under
 * node_modules/.cache, so the bundles' bare `@aws-sdk/*` imports resolve from the project's node_modules
 * the way Lambda resolves them from the runtime. The caller removes `outdir` when done.
 */
export function buildBundles(): { outdir: string; bundles: Bundle[] } {
  const cache = join(PROJECT_ROOT, 'node_modules', '.cache', 'trainwatch');
  mkdirSync(cache, { recursive: true });
  const outdir = mkdtempSync(join(cache, 'bundles-'));
  const app = new App({ outdir, builtinCloudFormationValidation: false });
  const stack = new TrainwatchStack(app, 'TrainwatchBundles', { config: parseConfig(SLACK_APP_CONFIG) });
  app.synth();
  const m = stack.monitor;
  const fns = { sweep: m.sweep, sentinel: m.sentinel, remediate: m.remediate, slack: m.slackEndpoint?.fn };
  const bundles: Bundle[] = [];
  for (const [name, fn] of Object.entries(fns)) {
    if (!fn) continue;
    const asset = fn.function.node.findChild('Code') as Asset;
    const dir = join(outdir, asset.assetPath);
    bundles.push({
      name: name as Bundle['name'],
      dir,
      file: join(dir, 'index.mjs'),
      chunks: [CLASSIFY, ...SLACK_CHUNKS, EKS].map((c) => join(dir, c.file)).filter((f) => existsSync(f)),
    });
  }
  return { outdir, bundles };
}

/** The runtime-provided modules a bundle imports (left external by esbuild). */
export function externalImports(file: string): string[] {
  const code = readFileSync(file, 'utf8');
  return [...new Set([...code.matchAll(/from\s*"(@aws-sdk\/[^"]+)"/g)].map((m) => m[1]!))].sort();
}

/** Import time of one bundle in a fresh Node process: its SDK imports first, then the bundle's own code. */
export interface ImportTiming {
  /** Loading the `@aws-sdk/*` clients it imports (in Lambda these come from the runtime). */
  readonly sdkMs: number;
  /** Loading and evaluating the bundle itself once the SDK is loaded. */
  readonly ownMs: number;
}

/** Times `import()` of a bundle in a fresh process (module loading only, not Node's own start-up). */
export function importMs(file: string, sourceMaps = true): ImportTiming {
  const sdk = externalImports(file);
  const script = [
    'const t0 = performance.now();',
    `await Promise.all(${JSON.stringify(sdk)}.map((m) => import(m)));`,
    'const t1 = performance.now();',
    `await import(${JSON.stringify(pathToFileURL(file).href)});`,
    'console.log(JSON.stringify({ sdkMs: t1 - t0, ownMs: performance.now() - t1 }));',
  ].join('\n');
  const args = [...(sourceMaps ? ['--enable-source-maps'] : []), '--input-type=module', '-e', script];
  const out = execFileSync(process.execPath, args, {
    cwd: dirname(file),
    encoding: 'utf8',
    env: { ...process.env, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x' },
  });
  return JSON.parse(out.trim().split('\n').pop()!) as ImportTiming;
}

/** Import time of the Slack channel's own file in a fresh process (what the first Slack alert adds). */
export function chunkMs(file: string): number {
  const script = `const t0 = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t0);`;
  const out = execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], {
    cwd: dirname(file),
    encoding: 'utf8',
  });
  return Number(out.trim().split('\n').pop());
}

/** The seven clients every function imported before issue 8, timed the same way: a same-moment baseline. */
export const ALL_SEVEN = [
  '@aws-sdk/client-dynamodb',
  '@aws-sdk/client-eventbridge',
  '@aws-sdk/client-s3',
  '@aws-sdk/client-sns',
  '@aws-sdk/client-sqs',
  '@aws-sdk/client-ssm',
  '@aws-sdk/lib-dynamodb',
];

/** Times `import()` of `modules` in a fresh process started in `cwd`. */
export function sdkLoadMs(modules: readonly string[], cwd: string): number {
  const script = `const t0 = performance.now(); await Promise.all(${JSON.stringify(modules)}.map((m) => import(m))); console.log(performance.now() - t0);`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd,
    encoding: 'utf8',
  });
  return Number(out.trim().split('\n').pop());
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** Prints each function's bundle size (raw, gzip, source map) and the median import time of `runs` runs. */
export async function benchBundles(runs = 7): Promise<void> {
  const started = performance.now();
  const { outdir, bundles } = buildBundles();
  try {
    console.log(
      `\nLambda bundles (esbuild, ESM, minified, @aws-sdk/* external; import time: median of ${runs} fresh node processes)`,
    );
    console.log(
      `  bundled in ${((performance.now() - started) / 1000).toFixed(1)} s (cdk synth with local esbuild)`,
    );
    const head = ['function', 'bundle', 'gzip', 'map', 'own code', 'no maps', 'SDK load', 'SDK clients'];
    const widths = [10, 10, 9, 10, 9, 9, 9, 0];
    const row = (cells: string[]) =>
      `  ${cells.map((c, i) => (i === 0 || i === 7 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' ')}`;
    console.log(row(head));
    const checks: string[] = [];
    for (const b of bundles) {
      const code = readFileSync(b.file);
      const map = statSync(`${b.file}.map`).size;
      importMs(b.file); // warm the OS file cache: every function pays the same disk cost
      // Interleaved with the bundle's own, so both see the same machine load.
      const seven: number[] = [];
      const withMaps = Array.from({ length: runs }, () => {
        seven.push(sdkLoadMs(ALL_SEVEN, b.dir));
        return importMs(b.file, true);
      });
      const without = Array.from({ length: runs }, () => importMs(b.file, false));
      const ms = (x: number) => `${x.toFixed(0)} ms`;
      const sdkMs = median(withMaps.map((t) => t.sdkMs));
      const before = b.name === 'slack' ? undefined : BUNDLES_BEFORE[b.name];
      const sevenMs = median(seven);
      const pass = (ok: boolean) => (ok ? 'PASS' : 'MISS');
      checks.push(
        `${pass(code.length / 1024 <= TARGETS.bundleKb)} ${b.name} ${kb(code.length)} <= ${TARGETS.bundleKb} KB${before ? ` (before ${before.kb} KB)` : ' (new)'}`,
      );
      // Only the sweep's and the sentinel's cold starts are on an alert's path: only they have an SDK target.
      if (!before) checks.push(`${b.name} SDK load ${ms(sdkMs)} (all seven clients now ${ms(sevenMs)})`);
      else if (b.name !== 'remediate')
        checks.push(
          `${pass(sdkMs <= TARGETS.sdkMs)} ${b.name} SDK load ${ms(sdkMs)} <= ${TARGETS.sdkMs} ms (before: ${before.sdkMs} ms quiet, all seven clients now ${ms(sevenMs)})`,
        );
      else
        checks.push(
          `${b.name} SDK load ${ms(sdkMs)} (before: ${before.sdkMs} ms quiet, all seven clients now ${ms(sevenMs)})`,
        );
      console.log(
        row([
          b.name,
          kb(code.length),
          kb(gzipSync(code).length),
          kb(map),
          ms(median(withMaps.map((t) => t.ownMs))),
          ms(median(without.map((t) => t.ownMs))),
          ms(sdkMs),
          externalImports(b.file)
            .map((m) => m.replace('@aws-sdk/', ''))
            .join(','),
        ]),
      );
      for (const file of b.chunks) {
        const chunk = readFileSync(file);
        const loads = Array.from({ length: runs }, () => chunkMs(file));
        console.log(
          row([
            `  + ${basename(file)}`,
            kb(chunk.length),
            kb(gzipSync(chunk).length),
            kb(statSync(`${file}.map`).size),
            ms(median(loads)),
            '',
            '',
            basename(file) === CLASSIFY.file
              ? 'loaded on the first failure classified'
              : basename(file) === EKS.file
                ? 'loaded on the first run on EKS'
                : 'loaded on the first Slack alert',
          ]),
        );
      }
    }
    console.log(
      '  own code: import of the bundle after its SDK clients are loaded, with --enable-source-maps (as deployed);',
    );
    console.log(
      '  no maps: the same without source maps; SDK load: the clients from node_modules (Lambda provides them).',
    );
    console.log(
      '  SDK clients: those imported at cold start; SNS, EventBridge and SSM are imported on first use (an alert, a parameter).',
    );
    console.log(
      "  + classify.mjs: the classifier's rules; slack-webhook.mjs, slack-app.mjs: the Slack channels (the webhook's; the app's with the Web API client); eks.mjs: the EKS platform (remediation); each its own file in the asset, imported on first use; \"own code\" is its import time.",
    );
    console.log(`  targets: ${checks.join('; ')}`);
    console.log(
      '  (import times grow two- to threefold on a busy machine: "all seven clients now" is what every function loaded before, timed alongside)',
    );
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchBundles(Number(process.argv[2] ?? 7));
}
