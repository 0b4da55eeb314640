import { DeliveryError } from '../../core/base/errors.js';

/** Error names that mean "try again later" even though AWS reports them as the caller's fault. */
const TRANSIENT_NAMES = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'KMSThrottlingException',
  'InternalException',
  'InternalFailure',
  'InternalErrorException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
]);

interface SdkErrorShape {
  name?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
}

/** Whether an error code is worth retrying (throttling, AWS-side faults). */
export function isTransientCode(code: string | undefined): boolean {
  return code !== undefined && TRANSIENT_NAMES.has(code);
}

/**
 * Turns an AWS SDK v3 error into a DeliveryError: throttling, 5xx and network faults are transient;
 * other client faults (NotFound, AuthorizationError, InvalidParameter, AccessDenied) would fail again.
 */
export function awsDeliveryError(channel: string, err: unknown): DeliveryError {
  const e = (typeof err === 'object' && err !== null ? err : {}) as SdkErrorShape;
  const name = e.name ?? 'Error';
  const status = e.$metadata?.httpStatusCode;
  const clientFault = e.$fault === 'client' || (status !== undefined && status >= 400 && status < 500);
  const permanent = clientFault && !isTransientCode(name) && status !== 429;
  const message = `${channel}: ${name}: ${e.message ?? String(err)}`;
  return new DeliveryError(message, permanent, { channel, code: name, status }, { cause: err });
}
