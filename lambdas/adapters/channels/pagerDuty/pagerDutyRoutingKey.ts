import type { SSMClient } from '@aws-sdk/client-ssm';
import { DeliveryError } from '../../../core/base/errors.js';
import type { ClientSource } from '../../aws/lazy.js';
import { SECRET_MAX_AGE_S, secretResolver } from '../../aws/secureString.js';

/** Gives the routing key, or throws DeliveryError saying whether a retry could help. */
export type RoutingKeyResolver = () => Promise<string>;

/** Rotating the key in SSM reaches warm Lambdas within this time (as for the Slack webhook). */
export const ROUTING_KEY_MAX_AGE_S = SECRET_MAX_AGE_S;

/**
 * The PagerDuty integration (routing) key: the value itself locally, else an SSM SecureString read on
 * first use, decrypted and cached by Powertools; undefined when neither is configured (no channel).
 */
export function pagerDutyRoutingKey(
  source: { readonly key?: string; readonly param?: string },
  ssm?: ClientSource<SSMClient>,
): RoutingKeyResolver | undefined {
  const { key, param } = source;
  return secretResolver({ value: key, param }, 'pagerduty', 'TRAINWATCH_PAGERDUTY_ROUTING_KEY', checked, ssm);
}

function checked(value: string | undefined, where: string): string {
  const key = value?.trim();
  // Never echo the value: it is a secret. Integration keys are 32 characters; accept any plain token.
  if (!key || !/^[A-Za-z0-9_-]{8,128}$/.test(key))
    throw new DeliveryError(`pagerduty: ${where} does not hold a routing key`, true, { where });
  return key;
}
