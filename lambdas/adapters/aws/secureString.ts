import { BaseProvider } from '@aws-lambda-powertools/parameters/base';
import type { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DeliveryError } from '../../core/base/errors.js';
import { type ClientSource, clientOf, once } from './lazy.js';

/** Rotating a secret in SSM reaches warm Lambdas within this time. */
export const SECRET_MAX_AGE_S = 300;

/**
 * Powertools' caching provider, reading one SecureString with a client it is given. Powertools' own
 * SSMProvider imports the SSM client at module load: that would load it on every cold start, and only
 * the functions that must read a secret from SSM should pay for it.
 */
class SecureStringProvider extends BaseProvider {
  constructor(
    client: SSMClient,
    private readonly Command: typeof GetParameterCommand,
  ) {
    super({ awsSdkV3Client: client });
  }

  protected async _get(name: string): Promise<string | undefined> {
    const out = await (this.client as SSMClient).send(new this.Command({ Name: name, WithDecryption: true }));
    return out.Parameter?.Value;
  }

  protected async _getMultiple(): Promise<undefined> {
    throw new Error('not used: trainwatch reads one parameter');
  }
}

/**
 * A secret given as itself (local mode) or as the name of an SSM SecureString read on first use (Lambda);
 * `check` validates what was found, never echoing it. Undefined when neither is configured: no channel.
 */
export function secretResolver(
  source: { readonly value?: string; readonly param?: string },
  channel: string,
  /** Where a value given as itself comes from, for the error (an environment variable). */
  envName: string,
  check: (value: string | undefined, where: string) => string,
  ssm?: ClientSource<SSMClient>,
): (() => Promise<string>) | undefined {
  const { value, param } = source;
  if (value) return async () => check(value, envName);
  if (!param) return undefined;
  const read = secureString(param, channel, ssm);
  return async () => check(await read(), `SSM parameter ${param}`);
}

/** SSM answers that another try would not change. */
const PERMANENT_SSM = new Set(['ParameterNotFound', 'ParameterVersionNotFound', 'AccessDeniedException']);

/**
 * Reads one SecureString on first use, decrypted and cached by Powertools for five minutes; the SSM client
 * is loaded then too. An SSM failure becomes a DeliveryError of `channel` saying whether a retry could help.
 */
export function secureString(
  param: string,
  channel: string,
  ssm: ClientSource<SSMClient> = once(async () => new (await import('@aws-sdk/client-ssm')).SSMClient({})),
): () => Promise<string | undefined> {
  const provider = once(async () => {
    const [{ GetParameterCommand }, client] = await Promise.all([
      import('@aws-sdk/client-ssm'),
      clientOf(ssm),
    ]);
    return new SecureStringProvider(client, GetParameterCommand);
  });
  return async () => {
    try {
      return (await (await provider()).get(param, { maxAge: SECRET_MAX_AGE_S })) as string | undefined;
    } catch (err) {
      // Powertools wraps SDK errors in GetParameterError; the SDK error's name is on `cause`.
      const e = err as { name?: string; message?: string; cause?: { name?: string } };
      const code = e.cause?.name ?? e.name ?? 'Error';
      const permanent =
        PERMANENT_SSM.has(code) ||
        e.name === 'ParameterNotFoundError' ||
        e.name === 'TransformParameterError';
      throw new DeliveryError(
        `${channel}: cannot read SSM parameter ${param}: ${code}: ${e.message ?? String(err)}`,
        permanent,
        { param, code },
        { cause: err },
      );
    }
  };
}
