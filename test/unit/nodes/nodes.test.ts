import { describe, expect, it } from 'vitest';
import { judgeNodes, type NodeObject } from '../../../lambdas/core/nodes/index.js';
import { parseDiagnosis } from '../../../lambdas/core/remediation/diagnosis/index.js';
import {
  batches,
  findCulprit,
  type NodeExamination,
  planNodeRestart,
} from '../../../lambdas/core/remediation/index.js';

const MIN = 60_000;
const NOW = 1_800_000_000_000;

function diag(...lines: string[]) {
  return parseDiagnosis(
    ['tw.version=1', 'run_id=r', 'host=h', 'time=1700000000', ...lines, 'end=ok'].join('\n'),
  );
}
const busy = (alive = true) =>
  diag(
    `process.alive=${alive}`,
    'gpu=0, NVIDIA H100 80GB HBM3, 97, 70000, 81559, 60, 0, 0, 00000000:53:00.0',
  );
const XID79 = [
  'process.alive=false',
  'gpu=3, NVIDIA H100 80GB HBM3, 0, 0, 81559, 40, 0, 0, 00000000:86:00.0',
  "xid=[86412.118305] NVRM: Xid (PCI:0000:86:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
];

function node(rank: number, agoMs: number): NodeObject {
  return { rank, lastModified: NOW - agoMs, etag: `"${rank}"`, size: 300 };
}

describe('judgeNodes', () => {
  const base = { since: NOW - 60 * MIN, now: NOW, staleAfterMs: 10 * MIN, startupGraceMs: 15 * MIN };

  it('is quiet while every expected node beats', () => {
    expect(
      judgeNodes({ ...base, nodes: [0, 1, 2, 3].map((r) => node(r, MIN)), expected: 4 }),
    ).toBeUndefined();
  });

  it('names a silent node with its instance, host and how long it has been silent', () => {
    const v = judgeNodes({
      ...base,
      nodes: [node(0, MIN), node(1, MIN), node(2, 14 * MIN), node(3, MIN)],
      expected: 4,
      summaries: { '2': { lastSeen: NOW - 14 * MIN, instanceId: 'i-0abc', hostname: 'ip-10-0-1-23' } },
    });
    expect(v?.silent).toEqual([2]);
    expect(v?.reason).toBe(
      'node 2 (i-0abc, ip-10-0-1-23) silent for 14m (threshold 10m) while the run still beats',
    );
  });

  it('counts missing nodes after the startup grace, not before', () => {
    const nodes = [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15].map((r) => node(r, MIN));
    const v = judgeNodes({ ...base, nodes, expected: 16 });
    expect(v?.missing).toEqual([3, 14]);
    expect(v?.reason).toBe('14 of 16 nodes reported (missing ranks 3, 14, 1h after start)');
    expect(judgeNodes({ ...base, since: NOW - 5 * MIN, nodes, expected: 16 })).toBeUndefined();
  });

  it('summarises many silent nodes, oldest first', () => {
    const nodes = Array.from({ length: 16 }, (_, r) => node(r, r < 8 ? 30 * MIN - r * MIN : MIN));
    const v = judgeNodes({ ...base, nodes });
    expect(v?.silent).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(v?.reason).toMatch(/^8 nodes silent \(ranks 0, 1, 2, 3, 4 and 3 more; the longest for 30m/);
  });
});

describe('findCulprit', () => {
  const healthy = (rank: number): NodeExamination => ({ rank, diagnosis: busy() });

  it.each([
    ['an Xid 79 node over a node whose process is gone', XID79, ['process.alive=false'], 'gpu_hardware'],
    [
      'a host OOM kill over a full disk',
      ['process.alive=false', 'kernel.oom=[1.0] Out of memory: Killed process 77 (python)'],
      ['process.alive=false', 'disk=/ckpt,1000,1000,0,100%,/ckpt'],
      'host_oom',
    ],
    [
      'a full disk over a missing process',
      ['process.alive=false', 'disk=/ckpt,1000,1000,0,100%,/ckpt'],
      ['process.alive=false'],
      'disk_full',
    ],
  ])('ranks %s', (_, a, b, kind) => {
    const f = findCulprit([
      healthy(0),
      { rank: 1, diagnosis: diag(...b) },
      { rank: 2, diagnosis: diag(...a) },
      healthy(3),
    ]);
    expect(f.culprit?.rank).toBe(2);
    expect(f.culprit?.kind).toBe(kind);
    expect(f.suspects.map((s) => s.rank)).toEqual([2, 1]);
    expect(f.healthy).toEqual([0, 3]);
  });

  it('names the culprit, its evidence, the healthy count and the nodes that could not be examined', () => {
    const f = findCulprit([
      healthy(0),
      healthy(1),
      {
        rank: 2,
        diagnosis: diag(...XID79),
        summary: { lastSeen: NOW, instanceId: 'i-0002', hostname: 'ip-10-0-1-23' },
      },
      { rank: 3, unexamined: 'SSM agent offline' },
    ]);
    expect(f.culprit).toMatchObject({ rank: 2, hardware: true, instanceId: 'i-0002' });
    expect(f.headline).toBe(
      'node 2 (i-0002, ip-10-0-1-23): GPU 3: Xid 79, fallen off the bus — replace the node; 2 nodes healthy, 1 not examined (3: SSM agent offline)',
    );
  });

  it('blames a silent node that could not be examined, the longest silent first', () => {
    const f = findCulprit([
      healthy(0),
      { rank: 1, unexamined: 'not a managed instance', silentForMs: 5 * MIN },
      { rank: 2, unexamined: 'not a managed instance', silentForMs: 20 * MIN },
    ]);
    expect(f.culprit).toMatchObject({
      rank: 2,
      kind: 'heartbeat_silent',
      evidence: 'no node heartbeat for 20m',
    });
    expect(f.unexamined.map((u) => u.rank)).toEqual([1, 2]);
  });

  it('blames idle GPUs only while other nodes are busy, and nothing when all look alike', () => {
    const idle = diag(
      'process.alive=true',
      'gpu=0, NVIDIA H100 80GB HBM3, 0, 70000, 81559, 40, 0, 0, 00000000:53:00.0',
    );
    expect(findCulprit([healthy(0), { rank: 1, diagnosis: idle }]).culprit?.kind).toBe('gpus_idle');
    const all = findCulprit([
      { rank: 0, diagnosis: idle },
      { rank: 1, diagnosis: idle },
    ]);
    expect(all.culprit).toBeUndefined();
    expect(all.headline).toBe('no node stands out; 2 nodes healthy');
  });

  it('does not blame a dead process when every node lost it (the job ended everywhere)', () => {
    const f = findCulprit([0, 1, 2].map((rank) => ({ rank, diagnosis: diag('process.alive=false') })));
    expect(f.culprit).toBeUndefined();
  });
});

describe('planNodeRestart', () => {
  const nodes = Object.fromEntries(
    [0, 1, 2, 3].map((r) => [
      String(r),
      { lastSeen: NOW, instanceId: `i-000${r}`, hostname: `ip-10-0-0-${r}` },
    ]),
  );
  const xid = findCulprit([{ rank: 2, diagnosis: diag(...XID79), summary: nodes['2'] }]).culprit;

  it('restarts every node with its rank, the node count and node 0 as master', () => {
    const p = planNodeRestart({ target: 'all', nodes, nnodes: 4 });
    expect(p.ok && p.restarts.map((r) => [r.instanceId, r.nodeRank, r.nnodes, r.masterAddr])).toEqual([
      ['i-0000', 0, 4, 'ip-10-0-0-0'],
      ['i-0001', 1, 4, 'ip-10-0-0-0'],
      ['i-0002', 2, 4, 'ip-10-0-0-0'],
      ['i-0003', 3, 4, 'ip-10-0-0-0'],
    ]);
  });

  it('refuses an all-nodes restart onto broken hardware, naming the node to replace', () => {
    const p = planNodeRestart({ target: 'all', nodes, nnodes: 4, culprit: xid });
    expect(p).toEqual({
      ok: false,
      refused:
        'the restart would land on the same broken GPU: replace node 2 (i-0002, ip-10-0-0-2) first (GPU 3: Xid 79, fallen off the bus — replace the node)',
    });
  });

  it('lets a head restart go ahead, asking the scheduler to avoid the broken host', () => {
    const p = planNodeRestart({ target: 'head', nodes, nnodes: 4, culprit: xid });
    expect(p.ok && p.restarts).toEqual([
      {
        rank: 0,
        instanceId: 'i-0000',
        nodeRank: 0,
        nnodes: 4,
        masterAddr: 'ip-10-0-0-0',
        excludeHosts: ['ip-10-0-0-2'],
      },
    ]);
  });

  it('refuses when a node has no instance id', () => {
    const p = planNodeRestart({ target: 'all', nodes: { ...nodes, '3': { lastSeen: NOW } }, nnodes: 4 });
    expect(p).toEqual({ ok: false, refused: 'cannot restart on every node: no instance id for node 3' });
  });

  it('batches instance ids by 50 for SendCommand', () => {
    expect(batches(Array.from({ length: 120 }, (_, i) => i)).map((b) => b.length)).toEqual([50, 50, 20]);
  });
});
