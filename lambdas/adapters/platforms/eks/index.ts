// Runs on EKS: the Kubernetes calls trainwatch makes, and the EKS token they are made with. In a Lambda
// bundle this module is a file of its own, loaded by load.ts the first time a run on EKS needs it.
export { type EksClusterConfig, type EksClusterOptions, eksCluster } from './cluster.js';
export { type EksApi, eksApi } from './eksApi.js';
export { KubeApiError, KubeInputError } from './errors.js';
export type { KubeEvent } from './events.js';
export {
  JOB_KINDS,
  type Job,
  type JobCondition,
  type JobKind,
  type JobManifest,
  jobKind,
  jobPodSelector,
  suspendPatch,
} from './jobs.js';
export { type Kube, type KubeCluster, type KubeRequest, kubeApi } from './kubeApi.js';
export { type LabelSelector, selectorText } from './names.js';
export type { KubeNode, NodeCondition } from './nodes.js';
export type { ContainerState, ContainerStatus, Pod } from './pods.js';
export { type CredentialSource, eksToken, eksTokenSource } from './token.js';
