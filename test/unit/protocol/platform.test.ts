import { describe, expect, it } from 'vitest';
import { statusRow } from '../../../bin/commands/status.js';
import { buildAlert } from '../../../lambdas/core/alerting/alerts.js';
import { DEFAULT_HEALTH_SETTINGS } from '../../../lambdas/core/health/index.js';
import { observe } from '../../../lambdas/core/pipeline/observe.js';
import { platformWhere } from '../../../lambdas/core/protocol/platform.js';
import { alertFields } from '../../../lambdas/core/render/fields.js';
import { bytes, listed, obj, record } from '../../support/fakes.js';

const NOW = Date.UTC(2026, 10, 28, 12);
const EKS = {
  kind: 'eks',
  cluster: 'ml-prod',
  namespace: 'training',
  pod: 'llama-sft-worker-0',
  node: 'ip-10-0-1-23.us-west-2.compute.internal',
  job: { kind: 'PyTorchJob', name: 'llama-sft' },
};

describe('where a run lives (metadata.json platform, protocol v1.4)', () => {
  it('names the cluster, namespace and job of a run on EKS', () => {
    expect(platformWhere(EKS)).toBe('EKS ml-prod/training/PyTorchJob llama-sft');
    expect(platformWhere({ ...EKS, cluster: undefined })).toBe(
      'EKS (cluster not named)/training/PyTorchJob llama-sft',
    );
    expect(platformWhere({ ...EKS, job: undefined })).toBe('EKS ml-prod/training/llama-sft-worker-0');
  });

  it('says nothing for other platforms, no platform, or names that are not Kubernetes names', () => {
    expect(platformWhere(undefined)).toBeUndefined();
    expect(platformWhere({ kind: 'ec2' })).toBeUndefined();
    expect(platformWhere({ ...EKS, namespace: 'Bad Name' })).toBeUndefined();
    expect(platformWhere({ ...EKS, cluster: 'x/../y' })).toBe(
      'EKS (cluster not named)/training/PyTorchJob llama-sft',
    );
    expect(platformWhere({ ...EKS, job: { kind: 'TFJob', name: 'x' } })).toBe(
      'EKS ml-prod/training/llama-sft-worker-0',
    );
  });

  it('is kept from metadata.json, shown in alerts instead of the instance, and in status', () => {
    const run = listed({ metadata: obj('metadata', NOW - 60_000) });
    const r = observe(
      record(),
      run,
      { metadata: bytes({ run_id: 'r1', job_name: 'llama', platform: EKS }) },
      NOW,
    );
    expect(r.meta?.where).toBe('EKS ml-prod/training/PyTorchJob llama-sft');

    const alert = buildAlert(r, {
      kind: 'transition',
      now: NOW,
      links: { bucket: 'b', prefix: 'p', region: 'us-east-1' },
    });
    expect(alert.where).toBe('EKS ml-prod/training/PyTorchJob llama-sft');
    const fields = alertFields(alert);
    expect(fields.find((f) => f.label === 'Runs on')?.value).toBe(
      'EKS ml-prod/training/PyTorchJob llama-sft',
    );
    expect(fields.find((f) => f.label === 'Instance')).toBeUndefined();

    expect(statusRow(r, NOW, DEFAULT_HEALTH_SETTINGS).runs_on).toBe(
      'EKS ml-prod/training/PyTorchJob llama-sft',
    );
    const onEc2 = observe(record(), run, { metadata: bytes({ run_id: 'r1', instance_id: 'i-0abc' }) }, NOW);
    expect(statusRow(onEc2, NOW, DEFAULT_HEALTH_SETTINGS).runs_on).toBe('i-0abc');
    expect(
      alertFields(
        buildAlert(onEc2, {
          kind: 'transition',
          now: NOW,
          links: { bucket: 'b', prefix: 'p', region: 'us-east-1' },
        }),
      ).find((f) => f.label === 'Instance')?.value,
    ).toBe('i-0abc');
  });
});
