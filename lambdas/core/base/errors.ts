/** Base of every error trainwatch throws on purpose. */
export class TrainwatchError extends Error {
  constructor(
    message: string,
    readonly context: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A setting is missing or invalid; the message names it. */
export class ConfigError extends TrainwatchError {}

/** A heartbeat file or run id does not follow the protocol. */
export class ProtocolError extends TrainwatchError {}

/** A conditional write lost: someone else changed the run first. */
export class ConflictError extends TrainwatchError {}

/** A channel could not deliver an alert; `permanent` says a retry would fail the same way. */
export class DeliveryError extends TrainwatchError {
  constructor(
    message: string,
    readonly permanent: boolean,
    context: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, context, options);
  }
}
