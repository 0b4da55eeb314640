import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EKS_SKIPPED, eksSection } from '../../local/eksSection.js';

// The local mode's run on EKS (issue 33, item 6) needs kube-apiserver and etcd built (~15 min): a machine
// without them gets one line saying how to build them, and the local mode goes on.
describe('local mode: the run on EKS without the API server built', () => {
  const cache = process.env.TRAINWATCH_KUBE_CACHE;
  afterEach(() => {
    if (cache === undefined) delete process.env.TRAINWATCH_KUBE_CACHE;
    else process.env.TRAINWATCH_KUBE_CACHE = cache;
  });

  it('prints how to build the binaries, and touches nothing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'trainwatch-no-kube-'));
    process.env.TRAINWATCH_KUBE_CACHE = empty;
    const lines: string[] = [];
    // An endpoint nothing listens on: the skip must not reach the emulator (or start anything).
    await eksSection('http://127.0.0.1:9', (line) => lines.push(line));
    rmSync(empty, { recursive: true });
    expect(lines).toEqual([EKS_SKIPPED]);
    expect(EKS_SKIPPED).toBe(
      'EKS: skipped — build the Kubernetes API server once with `node scripts/ensure-kube.mjs` (~15 min), then `npm start` shows a run on EKS',
    );
  });

  it('is printed by the local mode at the end of its story', () => {
    const source = readFileSync(join(import.meta.dirname, '..', '..', 'local', 'localMode.ts'), 'utf8');
    expect(source).toMatch(/await eksSection\(emulator\.endpoint, out, stamp\)/);
  });
});
