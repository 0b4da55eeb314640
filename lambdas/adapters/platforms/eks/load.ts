// Loads the EKS module the first time a run on EKS needs it: no EC2-only deployment pays for it at cold
// start. In a Lambda bundle it is a file of its own beside the handler (`eks.mjs`, built like the
// classifier's chunk: lib/functions.ts defines the name below); elsewhere (the CLI, the local mode, the
// tests) the name is undefined and the module itself is imported.

type EksModule = typeof import('./index.js');

/** The file the bundling writes beside the handler's `index.mjs`. */
export const EKS_CHUNK = 'eks.mjs';

declare const __TRAINWATCH_EKS_CHUNK__: string | undefined;

let loading: Promise<EksModule> | undefined;

/** The EKS module: its own file in a Lambda bundle, the source elsewhere; a failed load is tried again. */
export function loadEks(): Promise<EksModule> {
  loading ??= (
    typeof __TRAINWATCH_EKS_CHUNK__ === 'string'
      ? (import(new URL(__TRAINWATCH_EKS_CHUNK__, import.meta.url).href) as Promise<EksModule>)
      : import('./index.js')
  ).catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

/** True for the EKS module's KubeApiError (the chunk has its own copy: `instanceof` fails across it). */
export function isKubeApiError(e: unknown): e is import('./errors.js').KubeApiError {
  return e instanceof Error && e.name === 'KubeApiError';
}
