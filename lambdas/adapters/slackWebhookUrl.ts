import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { DeliveryError } from '../core/errors.js';

/** Gives the webhook URL, or throws DeliveryError saying whether a retry could help. */
export type WebhookUrlResolver = () => Promise<string>;

/** Where the webhook URL comes from: the URL itself (local mode) or an SSM SecureString name (Lambda). */
export interface WebhookUrlSource {
  readonly url?: string;
  readonly param?: string;
}

/** Rotating the secret in SSM reaches warm Lambdas within this time. */
export const WEBHOOK_URL_MAX_AGE_S = 300;

/** SSM answers that another try would not change. */
const PERMANENT_SSM = new Set(['ParameterNotFound', 'ParameterVersionNotFound', 'AccessDeniedException']);

/**
 * A resolver for the Slack webhook URL; undefined when neither a URL nor a parameter is configured.
 * The parameter is read on first use, decrypted, and cached by Powertools for five minutes.
 */
export function slackWebhookUrl(source: WebhookUrlSource, ssm?: SSMClient): WebhookUrlResolver | undefined {
  const { url, param } = source;
  if (url) return async () => checked(url, 'TRAINWATCH_SLACK_WEBHOOK_URL');
  if (!param) return undefined;
  let provider: SSMProvider | undefined;
  return async () => {
    provider ??= new SSMProvider(ssm ? { awsSdkV3Client: ssm } : {});
    let value: string | undefined;
    try {
      value = await provider.get(param, { decrypt: true, maxAge: WEBHOOK_URL_MAX_AGE_S });
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
