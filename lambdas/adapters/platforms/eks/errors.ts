// The two ways a Kubernetes call fails here: refused before it is sent (an input that is not Kubernetes
// syntax), or answered with an error (the API server's Status, or no answer at all). A chunk of its own has
// its own copy of these classes, so callers outside it test `name`, not `instanceof`.

/** A name, namespace or label selector that is not valid Kubernetes syntax: nothing was sent. */
export class KubeInputError extends Error {
  override readonly name = 'KubeInputError';
}

/** What the API server said, or why it could not be asked. */
export interface KubeFailure {
  /** The HTTP method and the path (no query): what was asked. */
  readonly method: string;
  readonly path: string;
  /** The HTTP status; undefined when no answer came (TLS, DNS, connection, timeout). */
  readonly status?: number;
  /** The Status object's `reason` (Forbidden, NotFound, Conflict, Unauthorized, …). */
  readonly reason?: string;
  /** The Status object's `message`, or the transport's error. */
  readonly detail: string;
}

/** A Kubernetes API call that failed; the message names the call, the status and the server's own words. */
export class KubeApiError extends Error implements KubeFailure {
  override readonly name = 'KubeApiError';
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly reason?: string;
  readonly detail: string;
  /** True for a failure worth retrying later: no answer, 429 or a 5xx. */
  readonly retryable: boolean;

  constructor(failure: KubeFailure, options?: { cause?: unknown }) {
    const what =
      failure.status === undefined ? 'no answer' : `${failure.status} ${failure.reason ?? ''}`.trim();
    super(`Kubernetes ${failure.method} ${failure.path}: ${what}: ${failure.detail}`, options);
    this.method = failure.method;
    this.path = failure.path;
    this.status = failure.status;
    this.reason = failure.reason;
    this.detail = failure.detail;
    this.retryable = failure.status === undefined || failure.status === 429 || failure.status >= 500;
  }
}
