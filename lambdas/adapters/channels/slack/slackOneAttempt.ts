// Bundled in place of `p-retry` in the Lambda functions (lib/functions.ts aliases it): the official Slack
// client's only use of it. trainwatch gives the client `retryConfig: { retries: 0 }` (slackNotifier.ts)
// because the run's outbox retries what a channel could not take (core/alerting/deliver.ts); with no
// retries, p-retry makes one attempt and unwraps an AbortError, which is all this does. p-retry and its
// `retry` dependency were 4.4 KB of every bundle. The CLI, local mode and tests keep the real package.

/** p-retry's AbortError: a failure the client marks as not worth retrying (a 4xx); its cause is thrown. */
export class AbortError extends Error {
  readonly originalError: Error;
  constructor(message: string | Error) {
    super(message instanceof Error ? message.message : message);
    this.name = 'AbortError';
    this.originalError = message instanceof Error ? message : new Error(message);
  }
}

/** `pRetry(input, { retries: 0 })`: one attempt; an AbortError rejects with the error it wraps. */
export default async function pRetry<T>(input: (attemptNumber: number) => Promise<T> | T): Promise<T> {
  try {
    return await input(1);
  } catch (e) {
    throw e instanceof AbortError ? e.originalError : e;
  }
}
