// Apart from clients.ts, so a function that uses no S3 (the Slack endpoint) does not import its client.

/** Where the clients connect: the region and, locally, the emulator's endpoint. */
export interface SdkOptions {
  readonly region: string;
  readonly endpoint?: string;
  readonly maxAttempts?: number;
}

/** The configuration every client shares. */
export function sdkConfig(o: SdkOptions): { region: string; endpoint?: string; maxAttempts: number } {
  return {
    region: o.region,
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    maxAttempts: o.maxAttempts ?? 3,
  };
}
