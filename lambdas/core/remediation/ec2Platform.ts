import type { RunRecord } from '../model/record.js';
import { launch } from './launch.js';
import { isMultiNode, probeNodes } from './nodeProbe.js';
import type { Platform } from './platform.js';
import { probe } from './probe.js';
import type { RemediationTarget } from './target.js';
import type { RemediationDeps } from './types.js';

/** EC2 instances, through SSM Run Command: the diagnosis document on each node, the restart document to launch. */
export function ec2Platform(deps: RemediationDeps, t: RemediationTarget): Platform {
  return {
    where: t.instanceId ? `instance ${t.instanceId}` : 'an unknown instance',
    probe: (target: RemediationTarget, rec: RunRecord, now: number) =>
      isMultiNode(rec) ? probeNodes(deps, target, rec, now) : probe(deps, target, rec),
    cannotRestart: (target) =>
      !target.job
        ? `no restart command is configured for job ${target.jobName ?? '(unnamed)'} (TRAINWATCH_RESTART_COMMANDS)`
        : !deps.settings.restartDocument
          ? 'no restart document is configured'
          : undefined,
    launch: (rec, target, d, nodes, now) => launch(deps, rec, target, d, nodes, now),
  };
}
