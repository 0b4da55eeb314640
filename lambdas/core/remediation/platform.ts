// Where a run's processes live, as remediation acts on them: the port between deciding and doing. EC2
// instances are looked at and restarted through SSM Run Command (ec2Platform.ts); a Kubernetes job on EKS
// through the cluster's API (eks/). Remediation assesses, decides by policy and alerts the same way for both.
import type { RunRecord } from '../model/record.js';
import type { NodeFindings } from './culprit.js';
import type { Launch } from './launch.js';
import type { Decision } from './policy/index.js';
import type { Seen } from './probe.js';
import type { RemediationTarget } from './target.js';

/** What a platform does for remediation. Never throws for the run's fault: a failure is a finding or a reason. */
export interface Platform {
  /** How the alert names where the run lives ("instance i-0abc…", "EKS ml/team-a/PyTorchJob llama"). */
  readonly where: string;
  /** Looks at the run where it runs: the probe the policy reads, evidence for the classifier, the culprit. */
  probe(t: RemediationTarget, rec: RunRecord, now: number): Promise<Seen>;
  /** Why no restart can be carried out here whatever the policy says (nothing configured to restart with). */
  cannotRestart(t: RemediationTarget): string | undefined;
  /** Starts the next attempt the way the run runs. */
  launch(
    rec: RunRecord,
    t: RemediationTarget,
    d: Decision,
    nodes: NodeFindings | undefined,
    now: number,
  ): Promise<Launch>;
}
