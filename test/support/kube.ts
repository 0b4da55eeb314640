// The real kube-apiserver harness lives in the local mode (local/kubeServer.ts), which shows a run on EKS with
// it; the tests keep importing it from here.
export {
  applyCrds,
  asAdmin,
  createNamespace,
  EKS_RBAC,
  type Kube,
  type KubeResponse,
  kubeRequest,
  type RbacObject,
  rbacPath,
  startKube,
  TRAINING_JOB_CRDS,
} from '../../local/kubeServer.js';
