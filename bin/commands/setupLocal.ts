import { createApp } from '../../lambdas/app.js';
import { setupLocal } from '../../local/setup.js';

/** `trainwatch setup-local`: creates the configured resources on the emulator at AWS_ENDPOINT_URL. */
export async function run(_args: string[]): Promise<number> {
  const app = createApp(process.env);
  for (const line of await setupLocal(app.config, app.clients)) console.log(`created ${line}`);
  return 0;
}
