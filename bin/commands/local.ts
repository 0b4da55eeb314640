import { parseArgs } from 'node:util';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import type { RemediationDeps } from '../../lambdas/core/remediation/index.js';
import { handleRemediation } from '../../lambdas/handlers/remediate.js';
import type { App } from '../../lambdas/wiring/app.js';
import { remediationDeps } from '../../lambdas/wiring/remediation.js';
import { runDeployed } from '../../local/deployedMode.js';
import { runLocal } from '../../local/localMode.js';
import { pythonExample } from '../../local/pythonExample.js';
import { simulatedInstances } from '../../local/simulatedInstance.js';

/**
 * `trainwatch local [--max-seconds N] [--sweep-every S] [--no-python] [--keep-running]`: the watchdog on the emulator.
 * `trainwatch local --deployed [--max-seconds N] [--keep-running]`: the real stack deployed into MiniStack.
 */
export async function run(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'max-seconds': { type: 'string' },
      'sweep-every': { type: 'string' },
      'no-python': { type: 'boolean' },
      'keep-running': { type: 'boolean' },
      deployed: { type: 'boolean' },
    },
  });
  const maxSeconds = Number(values['max-seconds'] ?? 150);
  const sweepEvery = Number(values['sweep-every'] ?? 3);
  if (!(maxSeconds > 0) || !(sweepEvery > 0))
    throw new ConfigError('--max-seconds and --sweep-every take positive numbers of seconds');
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  if (values.deployed)
    return runDeployed({
      maxSeconds: Number(values['max-seconds'] ?? 300),
      keepRunning: values['keep-running'],
      out: (line) => console.log(line),
      signal: controller.signal,
    });
  let deps: RemediationDeps | undefined;
  return runLocal({
    maxSeconds,
    sweepEveryMs: sweepEvery * 1000,
    out: (line) => console.log(line),
    signal: controller.signal,
    keepRunning: values['keep-running'],
    remediate: (app: App, event) => {
      deps ??= remediationDeps(app);
      return handleRemediation(deps, event, Date.now);
    },
    instances: (app, scenarios, onRestart) => simulatedInstances(app.config.endpoint!, scenarios, onRestart),
    external: values['no-python'] ? undefined : pythonExample,
  });
}
