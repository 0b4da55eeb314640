import { describe, expect, it } from 'vitest';
import { type ObjectInfo, RunGrouper } from '../../../lambdas/core/model/listing.js';

const at = (key: string, lastModified = 1000, etag = `"${key}"`): ObjectInfo => ({
  key,
  lastModified,
  etag,
  size: 10,
});

function group(prefix: string, objects: ObjectInfo[]) {
  const g = new RunGrouper(prefix);
  for (const o of objects) g.add(o);
  return g;
}

describe('RunGrouper', () => {
  it('groups protocol files by run, in run id order', () => {
    const g = group('training-runs', [
      at('training-runs/b/metadata.json', 5),
      at('training-runs/a/progress.json', 6),
      at('training-runs/a/metadata.json', 7),
      at('training-runs/a/_error', 8),
      at('training-runs/a/_complete', 9),
      at('training-runs/a/logs/training_log_latest.txt', 10),
    ]);
    const runs = g.result();
    expect(runs.map((r) => r.runId)).toEqual(['a', 'b']);
    expect(Object.keys(runs[0]!.files).sort()).toEqual(['complete', 'error', 'log', 'metadata', 'progress']);
    expect(runs[0]!.files.metadata).toEqual(at('training-runs/a/metadata.json', 7));
    expect(runs[1]!.files).toEqual({ metadata: at('training-runs/b/metadata.json', 5) });
    expect(g.ignored).toEqual([]);
  });

  it('firstSeenAt is the earliest LastModified under the run, whatever the order', () => {
    const g = group('p', [at('p/r/metadata.json', 50), at('p/r/notes.txt', 20), at('p/r/progress.json', 30)]);
    expect(g.result()[0]!.firstSeenAt).toBe(20);
  });

  it('unknown files make a run exist but are not protocol files', () => {
    const g = group('p', [at('p/r/checkpoints/step-100.pt', 5), at('p/r/logs/other.txt', 6)]);
    expect(g.result()).toEqual([{ runId: 'r', files: {}, firstSeenAt: 5 }]);
  });

  it('ignores keys outside the prefix, including a sibling prefix that shares its start', () => {
    const g = group('training-runs', [at('other/r/metadata.json'), at('training-runs-old/r/metadata.json')]);
    expect(g.result()).toEqual([]);
    expect(g.ignored).toEqual([]);
  });

  it('ignores keys directly under the prefix', () => {
    const g = group('training-runs', [at('training-runs/README.md'), at('training-runs/metadata.json')]);
    expect(g.result()).toEqual([]);
  });

  it("ignores archived attempts, which neither count as files nor move the run's first-seen time", () => {
    const g = group('p', [
      at('p/r/attempts/1/_error', 1),
      at('p/r/attempts/1/metadata.json', 2),
      at('p/r/metadata.json', 100),
    ]);
    expect(g.result()).toEqual([
      { runId: 'r', files: { metadata: at('p/r/metadata.json', 100) }, firstSeenAt: 100 },
    ]);
  });

  it('a run with only archived attempts does not exist', () => {
    expect(group('p', [at('p/r/attempts/1/_error')]).result()).toEqual([]);
  });

  it('records keys under an invalid run id with the problem, and no run for them', () => {
    const g = group('p', [at('p/bad run/metadata.json'), at('p/../metadata.json'), at('p/ok/metadata.json')]);
    expect(g.result().map((r) => r.runId)).toEqual(['ok']);
    expect(g.ignored).toEqual([
      { key: 'p/bad run/metadata.json', problem: expect.stringMatching(/may hold only/) },
      { key: 'p/../metadata.json', problem: expect.stringMatching(/may hold only/) },
    ]);
  });

  it('an empty path segment (double slash) is an invalid run id', () => {
    const g = group('p', [at('p//metadata.json')]);
    expect(g.result()).toEqual([]);
    expect(g.ignored).toEqual([{ key: 'p//metadata.json', problem: 'run id is empty' }]);
  });

  it('keeps at most 100 ignored keys', () => {
    const g = group(
      'p',
      Array.from({ length: 150 }, (_, i) => at(`p/.bad${i}/metadata.json`)),
    );
    expect(g.ignored).toHaveLength(100);
  });

  it('normalises trailing slashes on the prefix, and an empty prefix means the bucket root', () => {
    expect(
      group('p//', [at('p/r/metadata.json')])
        .result()
        .map((r) => r.runId),
    ).toEqual(['r']);
    expect(
      group('', [at('r/metadata.json'), at('top.txt')])
        .result()
        .map((r) => r.runId),
    ).toEqual(['r']);
  });

  it('a nested prefix works', () => {
    const g = group('ml/team-a/runs', [
      at('ml/team-a/runs/r/progress.json'),
      at('ml/team-b/runs/r/progress.json'),
    ]);
    expect(g.result()).toHaveLength(1);
    expect(g.result()[0]!.files.progress?.key).toBe('ml/team-a/runs/r/progress.json');
  });
});

describe('runKey and splitRunKey', () => {
  it('are inverses under a prefix and at the bucket root', async () => {
    const { runKey, splitRunKey } = await import('../../../lambdas/core/model/listing.js');
    for (const prefix of ['training-runs', 'a/b', 'training-runs/', '']) {
      const key = runKey(prefix, 'run-1', 'logs/training_log_latest.txt');
      expect(splitRunKey(prefix, key)).toEqual({ runId: 'run-1', path: 'logs/training_log_latest.txt' });
    }
    expect(runKey('p', 'run-1')).toBe('p/run-1/');
    expect(splitRunKey('p', 'other/run-1/x')).toBeUndefined();
    expect(splitRunKey('p', 'p/file-directly-under-prefix')).toBeUndefined();
  });

  it('runKey refuses an invalid run id rather than build a path from it', async () => {
    const { runKey } = await import('../../../lambdas/core/model/listing.js');
    expect(() => runKey('p', '..')).toThrow(/run id/);
    expect(() => runKey('p', 'a/b')).toThrow(/run id/);
  });
});
