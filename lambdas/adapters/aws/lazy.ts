// Clients made on first use: an SDK module a function may not need is imported when it is, not at cold start.

/** A client ready now, or one made on first use (its SDK module is imported then, not at cold start). */
export type ClientSource<T extends object> = T | (() => Promise<T>);

/** The client a source stands for. */
export async function clientOf<T extends object>(source: ClientSource<T>): Promise<T> {
  return typeof source === 'function' ? source() : source;
}

/** Makes a value on the first call and shares it; a failed attempt is not remembered. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () =>
    (made ??= make().catch((e: unknown) => {
      made = undefined;
      throw e;
    }));
}
