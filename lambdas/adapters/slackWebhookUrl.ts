import { BaseProvider } from '@aws-lambda-powertools/parameters/base';
import type { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DeliveryError } from '../core/errors.js';
import { type ClientSource, clientOf, once } from './lazy.js';

/** Gives the webhook URL, or throws DeliveryError saying whether a retry could help. */
export type WebhookUrlResolver = () => Promise<string>;

/** Where the webhook URL comes from: the URL itself (local mode) or an SSM SecureString name (Lambda). */
export interface WebhookUrlSource {
  readonly url?: string;
  readonly param?: string;
}

/** Rotating the secret in SSM reaches warm Lambdas within this time. */
export const WEBHOOK_URL_MAX_AGE_S = 300;

/**
 * Powertools' caching provider, reading one SecureString with a client it is given. Powertools' own
 * SSMProvider imports the SSM client at module load: that would load it on every cold start, and only
 * the functions that must read the webhook from SSM should pay for it.
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

/** SSM answers that another try would not change. */
const PERMANENT_SSM = new Set(['ParameterNotFound', 'ParameterVersionNotFound', 'AccessDeniedException']);

/**
 * A resolver for the Slack webhook URL; undefined when neither a URL nor a parameter is configured.
 * The parameter is read on first use, decrypted, and cached by Powertools for five minutes.
 */
export function slackWebhookUrl(
  source: WebhookUrlSource,
  ssm: ClientSource<SSMClient> = once(async () => new (await import('@aws-sdk/client-ssm')).SSMClient({})),
): WebhookUrlResolver | undefined {
  const { url, param } = source;
  if (url) return async () => checked(url, 'TRAINWATCH_SLACK_WEBHOOK_URL');
  if (!param) return undefined;
  const provider = once(async () => {
    const [{ GetParameterCommand }, client] = await Promise.all([
      import('@aws-sdk/client-ssm'),
      clientOf(ssm),
    ]);
    return new SecureStringProvider(client, GetParameterCommand);
  });
  return async () => {
    let value: string | undefined;
    try {
      value = (await (await provider()).get(param, { maxAge: WEBHOOK_URL_MAX_AGE_S })) as string | undefined;
    } catch (err) {
      throw ssmError(param, err);
    }
    return checked(value, `SSM parameter ${param}`);
  };
}

function checked(value: string | undefined, where: string): string {
  const url = value?.trim();
  if (!url || !/^https?:\/\/\S+$/.test(url))
    // Never echo the value: it is a secret.
    throw new DeliveryError(`slack: ${where} does not hold an http(s) webhook URL`, true, { where });
  return url;
}

/** Powertools wraps SDK errors in GetParameterError; the SDK error's name is on `cause`. */
function ssmError(param: string, err: unknown): DeliveryError {
  const e = err as { name?: string; message?: string; cause?: { name?: string } };
  const code = e.cause?.name ?? e.name ?? 'Error';
  const permanent =
    PERMANENT_SSM.has(code) || e.name === 'ParameterNotFoundError' || e.name === 'TransformParameterError';
  return new DeliveryError(
    `slack: cannot read SSM parameter ${param}: ${code}: ${e.message ?? String(err)}`,
    permanent,
    { param, code },
    { cause: err },
  );
}
