// The real kube-apiserver harness lives in the local mode (local/kubeServer.ts), which shows a run on EKS with
// it; the tests keep importing it from here.
export {
  applyCrds,
  type Kube,
  type KubeResponse,
  kubeRequest,
  startKube,
  TRAINING_JOB_CRDS,
} from '../../local/kubeServer.js';
