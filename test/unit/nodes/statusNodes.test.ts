import { describe, expect, it } from 'vitest';
import { nodeRows, nodeTable } from '../../../bin/commands/statusNodes.js';
import { withFacts } from '../../../lambdas/core/model/record.js';
import { record } from '../../support/fakes.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const M = 60_000;

describe('status node table', () => {
  const rec = record({
    meta: { nodes: 4 },
    facts: {
      nodes: {
        '0': {
          lastSeen: NOW - 2 * M,
          instanceId: 'i-0000000000000000a',
          hostname: 'ip-10-0-1-20',
          step: 5200,
          gpuUtil: 97,
        },
        '1': {
          lastSeen: NOW - 2 * M,
          instanceId: 'i-0000000000000000b',
          hostname: 'ip-10-0-1-21',
          finding: 'nodes/1.json: hostname "x y" is not a valid host name: ignored',
        },
        '2': {
          lastSeen: NOW - 30 * M,
          instanceId: 'i-0000000000000000c',
          hostname: 'ip-10-0-1-22',
          step: 5100,
        },
      },
    },
  });
  const listed = [
    { rank: 0, lastModified: NOW - M, etag: 'a', size: 1 },
    { rank: 1, lastModified: NOW - M, etag: 'b', size: 1 },
    { rank: 2, lastModified: NOW - 14 * M, etag: 'c', size: 1 },
  ];

  it('gives every expected node a row: freshness from the LIST, the rest from the sweep, missing ranks named', () => {
    const rows = nodeRows(rec, listed, NOW, 10 * M);
    expect(rows.map((r) => [r.node_rank, r.stale, r.finding])).toEqual([
      [0, false, null],
      [1, false, 'nodes/1.json: hostname "x y" is not a valid host name: ignored'],
      [2, true, 'silent for 14m'],
      [3, true, 'never reported'],
    ]);
    expect(rows[0]).toMatchObject({
      instance_id: 'i-0000000000000000a',
      hostname: 'ip-10-0-1-20',
      last_seen: new Date(NOW - M).toISOString(),
      step: 5200,
      gpu_util: 97,
    });
  });

  it('renders a table a person can scan', () => {
    const lines = nodeTable(nodeRows(rec, listed, NOW, 10 * M), NOW).split('\n');
    expect(lines[0]).toMatch(/^NODE\s+INSTANCE\s+HOST\s+LAST BEAT\s+STEP\s+GPU UTIL\s+STACK\s+FINDING$/);
    expect(lines[3]).toMatch(
      /^2\s+i-0000000000000000c\s+ip-10-0-1-22\s+14m ago\s+5100\s+-\s+-\s+silent for 14m$/,
    );
  });

  it('shows where each stalled node waits, the odd one out starred (v1.2 stacks; --json: nodes[].stack)', () => {
    const stalled = withFacts(rec, {
      stacks: {
        attempt: rec.attempt,
        etags: {},
        waits: {
          '0': { kind: 'collective' as const, call: 'all_reduce', at: 'train.py:88' },
          '1': 'stacks/1.json is 70000 bytes (at most 65536)',
          '2': {
            kind: 'data_loader' as const,
            call: 'DataLoader.__next__',
            blocks: 'queue.get',
            at: 'dataset.py:41',
          },
        },
        text: '…',
        suspects: [2],
        family: 'hang' as const,
      },
    });
    const rows = nodeRows(stalled, listed, NOW, 10 * M);
    expect(rows.map((r) => r.stack)).toEqual([
      { kind: 'collective', call: 'all_reduce', blocks: null, at: 'train.py:88', suspect: false },
      { problem: 'stacks/1.json is 70000 bytes (at most 65536)', suspect: false },
      {
        kind: 'data_loader',
        call: 'DataLoader.__next__',
        blocks: 'queue.get',
        at: 'dataset.py:41',
        suspect: true,
      },
      null,
    ]);
    const lines = nodeTable(rows, NOW).split('\n');
    expect(lines[3]).toContain('* DataLoader.__next__ (queue.get, dataset.py:41)');
    // A verdict of an earlier attempt is not shown.
    expect(nodeRows({ ...stalled, attempt: 2 }, listed, NOW, 10 * M).every((r) => r.stack === null)).toBe(
      true,
    );
  });
});
