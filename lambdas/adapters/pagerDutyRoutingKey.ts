import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { DeliveryError } from '../core/errors.js';

/** Gives the routing key, or throws DeliveryError saying whether a retry could help. */
export type RoutingKeyResolver = () => Promise<string>;

/** Rotating the key in SSM reaches warm Lambdas within this time (as for the Slack webhook). */
export const ROUTING_KEY_MAX_AGE_S = 300;

const PERMANENT_SSM = new Set(['ParameterNotFound', 'ParameterVersionNotFound', 'AccessDeniedException']);

/**
 * The PagerDuty integration (routing) key: the value itself locally, else an SSM SecureString read on
 * first use, decrypted and cached by Powertools; undefined when neither is configured (no channel).
 */
export function pagerDutyRoutingKey(
  source: { readonly key?: string; readonly param?: string },
  ssm?: SSMClient,
): RoutingKeyResolver | undefined {
  const { key, param } = source;
  if (key) return async () => checked(key, 'TRAINWATCH_PAGERDUTY_ROUTING_KEY');
  if (!param) return undefined;
  let provider: SSMProvider | undefined;
  return async () => {
    provider ??= new SSMProvider(ssm ? { awsSdkV3Client: ssm } : {});
    try {
      return checked(
        await provider.get(param, { decrypt: true, maxAge: ROUTING_KEY_MAX_AGE_S }),
        `SSM parameter ${param}`,
      );
    } catch (err) {
      if (err instanceof DeliveryError) throw err;
      const e = err as { name?: string; message?: string; cause?: { name?: string } };
      const code = e.cause?.name ?? e.name ?? 'Error';
      const permanent = PERMANENT_SSM.has(code) || e.name === 'ParameterNotFoundError';
      throw new DeliveryError(
        `pagerduty: cannot read SSM parameter ${param}: ${code}: ${e.message ?? String(err)}`,
        permanent,
        { param, code },
        { cause: err },
      );
    }
  };
}

function checked(value: string | undefined, where: string): string {
  const key = value?.trim();
  // Never echo the value: it is a secret. Integration keys are 32 characters; accept any plain token.
  if (!key || !/^[A-Za-z0-9_-]{8,128}$/.test(key))
    throw new DeliveryError(`pagerduty: ${where} does not hold a routing key`, true, { where });
  return key;
}
