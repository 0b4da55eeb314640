import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eksSection } from '../../local/eksSection.js';
import { type Emulator, startEmulator } from '../../local/emulator.js';

// The local mode's run on EKS (issue 33, item 6), run as `npm start` runs it: a real kube-apiserver, the
// emulator, trainwatch's sentinel, sweep and remediation, and the EKS adapter with only docs/eks-rbac.yaml.

let emulator: Emulator;
const lines: string[] = [];
let tookMs = 0;

beforeAll(async () => {
  emulator = await startEmulator();
  const started = performance.now();
  await eksSection(emulator.endpoint, (line) => lines.push(...line.split('\n')));
  tookMs = performance.now() - started;
  console.log(`the run on EKS took ${(tookMs / 1000).toFixed(1)} s`);
}, 120_000);

afterAll(async () => {
  await emulator?.stop();
});

/** The lines of the remediation alert whose header names `run`. */
function remediationAlert(run: string): string {
  const start = lines.findIndex((l, i) => lines[i - 1]?.endsWith('remediation alert') && l.includes(run));
  expect(start, `a remediation alert for ${run}`).toBeGreaterThan(0);
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('┃'));
  return lines.slice(start, end === -1 ? undefined : end).join('\n');
}

describe('local mode: a run on EKS', () => {
  it('diagnoses the OOMKilled pod through the API server and does not restart it', () => {
    const alert = remediationAlert('llama-sft');
    expect(alert).toContain('❌ llama-sft — FAILED (diagnosis)');
    expect(alert).toContain(
      'diagnosis: pod llama-sft-worker-0 on node ip-10-0-1-18.ec2.internal (Failed): container pytorch terminated OOMKilled (exit code 137)',
    );
    expect(alert).toContain('Error type `cpu_oom_killed`');
    expect(alert).toContain(
      'decision: no restart — not restarting: policy transient-custom (crash): cpu_oom_killed is excluded',
    );
  });

  it('restarts the stalled gang by deleting its pods, and says so', () => {
    const alert = remediationAlert('gemma-pt');
    expect(alert).toContain('🔄 gemma-pt — RESTARTING');
    expect(alert).toContain('diagnosis: 2 of 2 pods Running');
    expect(alert).toMatch(/policy transient-custom \(stall\) restarts unknown/);
    expect(alert).toContain(
      'restarted the gang: deleted 2 pods of PyTorchJob gemma-pt, which its operator re-creates',
    );
  });

  it('sees the stall and the failure through the real path, and attempt 2 running after the restart', () => {
    expect(lines.some((l) => /alert: ❌ llama-sft — FAILED — ncclRemoteError/.test(l))).toBe(true);
    expect(lines.some((l) => /alert: 🐌 gemma-pt — STALLED — step 730 has not advanced/.test(l))).toBe(true);
    expect(lines.some((l) => l.endsWith('sweep: gemma-pt RESTARTING→RUNNING'))).toBe(true);
    const table = lines.slice(lines.findIndex((l) => l.endsWith('trainwatch status:')) + 1);
    expect(table[0]).toMatch(/^RUN +STATE +TRY +PROGRESS/);
    expect(table[1]).toMatch(/^gemma-pt +RUNNING +2 /);
    expect(table[2]).toMatch(/^llama-sft +FAILED \(cpu_oom_killed\) +1 /);
  });

  it('takes a few seconds beyond the API server start, and stops it', () => {
    expect(tookMs).toBeLessThan(40_000); // ~10 s on a laptop: ~6 s of it the API server's start
  });
});
