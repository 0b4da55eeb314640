import { loadConfig } from '../../lambdas/config.js';
import { awsClients } from '../../local/awsClients.js';
import { setupLocal } from '../../local/setup.js';

/** `trainwatch setup-local`: creates the configured resources on the emulator at AWS_ENDPOINT_URL. */
export async function run(_args: string[]): Promise<number> {
  const config = loadConfig(process.env);
  const clients = awsClients({ region: config.region, endpoint: config.endpoint });
  for (const line of await setupLocal(config, clients)) console.log(`created ${line}`);
  return 0;
}
