// The real kube-apiserver harness lives in the local mode (local/kubeServer.ts), which shows a run on EKS with
// it; the tests keep importing it from here.
export {
  applyCrds,
  asAdmin,
  createNamespace,
  createPod,
  EKS_RBAC,
  type Kube,
  type KubeResponse,
  kubeRequest,
  type PodSpec,
  type RbacObject,
  rbacPath,
  startKube,
  TRAINING_JOB_CRDS,
} from '../../local/kubeServer.js';
