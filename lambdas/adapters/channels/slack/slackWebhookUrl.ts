import type { SSMClient } from '@aws-sdk/client-ssm';
import { DeliveryError } from '../../../core/base/errors.js';
import type { ClientSource } from '../../aws/lazy.js';
import { SECRET_MAX_AGE_S, secretResolver } from '../../aws/secureString.js';

/** Gives the webhook URL, or throws DeliveryError saying whether a retry could help. */
export type WebhookUrlResolver = () => Promise<string>;

/** Where the webhook URL comes from: the URL itself (local mode) or an SSM SecureString name (Lambda). */
export interface WebhookUrlSource {
  readonly url?: string;
  readonly param?: string;
}

/** Rotating the secret in SSM reaches warm Lambdas within this time. */
export const WEBHOOK_URL_MAX_AGE_S = SECRET_MAX_AGE_S;

/**
 * A resolver for the Slack webhook URL; undefined when neither a URL nor a parameter is configured.
 * The parameter is read on first use, decrypted, and cached by Powertools for five minutes.
 */
export function slackWebhookUrl(
  source: WebhookUrlSource,
  ssm?: ClientSource<SSMClient>,
): WebhookUrlResolver | undefined {
  const { url, param } = source;
  return secretResolver({ value: url, param }, 'slack', 'TRAINWATCH_SLACK_WEBHOOK_URL', checked, ssm);
}

function checked(value: string | undefined, where: string): string {
  const url = value?.trim();
  if (!url || !/^https?:\/\/\S+$/.test(url))
    // Never echo the value: it is a secret.
    throw new DeliveryError(`slack: ${where} does not hold an http(s) webhook URL`, true, { where });
  return url;
}
