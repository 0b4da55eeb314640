// Types for scripts/ensure-kube.mjs, which the kube test project's setup imports from TypeScript.
export declare const KUBERNETES_VERSION: string;
export declare const ETCD_VERSION: string;
export interface KubeBinaries {
  dir: string;
  kubeApiserver: string;
  etcd: string;
  stamp: string;
}
export declare function kubeCacheDir(): string;
export declare function kubeBinaries(): KubeBinaries;
export declare function kubeBuilt(): boolean;
export declare function ensureKube(options?: { log?: (line: string) => void }): KubeBinaries;
