import { describe, expect, it } from 'vitest';
import { parseStackFile } from '../../../lambdas/core/protocol/stacks.js';
import { stackVerdict, trainingWait, waitOf } from '../../../lambdas/core/stacks/index.js';
import { stackFile, WAITS, type WaitName } from '../../support/stacks.js';

const bytes = (x: unknown) => new TextEncoder().encode(typeof x === 'string' ? x : JSON.stringify(x));

describe('where a training thread waits', () => {
  it.each<[WaitName, string, string, string | undefined, string]>([
    ['allReduce', 'collective', 'all_reduce', undefined, 'train.py:88'],
    ['barrier', 'collective', 'barrier', undefined, 'train.py:91'],
    ['dataLoader', 'data_loader', 'DataLoader.__next__', 'queue.get', 'dataset.py:41'],
    ['lock', 'lock', 'lock.acquire', undefined, 'train.py:77'],
    ['lockAcquire', 'lock', 'lock.acquire', undefined, 'metrics.py:30'],
    ['sleep', 'sleep', 'time.sleep', undefined, 'train.py:80'],
    ['checkpoint', 'checkpoint_io', 'torch.save', undefined, 'train.py:104'],
    ['cudaItem', 'cuda', '.item()', undefined, 'train.py:86'],
    ['synchronize', 'cuda', 'torch.cuda.synchronize', undefined, 'train.py:84'],
    ['forward', 'running', 'forward', undefined, 'model.py:55'],
  ])('%s: %s in %s', (name, kind, call, blocks, at) => {
    expect(waitOf(WAITS[name])).toEqual({ kind, call, blocks, at });
  });

  it('a lock inside a library (logging’s handler lock, never released) is a lock, not running code', () => {
    const std = '/opt/conda/lib/python3.11/logging/__init__.py';
    const frames = [
      { file: '/work/train.py', line: 152, function: 'train', code: 'log.info("step %d", step)' },
      { file: std, line: 1489, function: 'info', code: 'self._log(INFO, msg, args, **kwargs)' },
      { file: std, line: 976, function: 'handle', code: 'self.acquire()' },
      { file: std, line: 927, function: 'acquire', code: 'self.lock.acquire()' },
    ];
    expect(waitOf(frames)).toEqual({
      kind: 'lock',
      call: 'lock.acquire',
      blocks: undefined,
      at: 'train.py:152',
    });
    // A method merely named acquire that takes no lock stays running code.
    const pool = [frames[0]!, { ...frames[3]!, code: 'return self.pool.get()' }];
    expect(waitOf(pool)).toMatchObject({ kind: 'running' });
  });

  it('a queue.get of the user’s own, outside a DataLoader, is a wait on a lock, shown as queue.get', () => {
    const frames = [...WAITS.dataLoader.slice(0, 2), ...WAITS.dataLoader.slice(5)];
    expect(waitOf(frames)).toMatchObject({ kind: 'lock', call: 'threading.wait', blocks: 'queue.get' });
  });
});

describe('the odd one out', () => {
  const run = (...waits: (WaitName | null)[]) =>
    stackVerdict(waits.map((w, rank) => (w ? { rank, wait: trainingWait(stackFile(rank, w)) } : { rank })));

  it('names the node in its data loader while the others wait in all_reduce', () => {
    const v = run('allReduce', 'allReduce', 'dataLoader', 'allReduce')!;
    expect(v.suspects).toEqual([2]);
    expect(v.family).toBe('hang');
    expect(v.text).toBe(
      "nodes 0, 1, 3 wait in `all_reduce` (train.py:88); node 2 is in `DataLoader.__next__` (queue.get, dataset.py:41): node 2's data loader is the likely cause",
    );
  });

  it('two nodes: the one not in the collective is the cause (no majority needed)', () => {
    expect(run('dataLoader', 'allReduce')!.suspects).toEqual([0]);
    expect(run('allReduce', 'lock')).toMatchObject({ suspects: [1], family: 'deadlock' });
  });

  it('a node that wrote no stack while its heartbeat stopped is odd: frozen whole, or gone', () => {
    const v = stackVerdict([
      { rank: 0, wait: trainingWait(stackFile(0, 'allReduce')) },
      { rank: 1, silentForMs: 26_000 },
    ])!;
    expect(v.suspects).toEqual([1]);
    expect(v.text).toContain('node 1: no stack; its heartbeat stopped 26s ago');
    expect(v.text).toContain('node 1 is the likely cause (frozen whole, or gone)');
    expect(v.family).toBe('hang');
  });

  it('a node without a stack whose node file is fresh is no suspect (late to write one, or stacks off)', () => {
    expect(run('allReduce', 'allReduce', null)!.suspects).toEqual([]);
    expect(run('dataLoader', 'dataLoader', null)!.suspects).toEqual([]);
  });

  it('a barrier inside save_checkpoint is a wait in the barrier; the node writing the checkpoint is odd, even of two', () => {
    const inSave = [
      ...WAITS.barrier.slice(0, 2),
      { file: '/opt/train/train.py', line: 104, function: 'save_checkpoint', code: 'dist.barrier()' },
      ...WAITS.barrier.slice(3),
    ];
    expect(waitOf(inSave)).toMatchObject({ kind: 'collective', call: 'barrier' });
    expect(
      stackVerdict([
        { rank: 0, wait: trainingWait(stackFile(0, 'checkpoint')) },
        { rank: 1, wait: waitOf(inSave) },
      ])!.suspects,
    ).toEqual([0]);
  });

  it('every node in the same kind of wait at different lines (a long save) names nobody', () => {
    const closing = [
      ...WAITS.checkpoint.slice(0, -1),
      {
        file: '/opt/conda/lib/python3.11/site-packages/torch/serialization.py',
        line: 500,
        function: '__exit__',
      },
    ];
    expect(waitOf(closing).call).toBe('torch.save');
    const v = stackVerdict([
      ...[0, 1, 2].map((rank) => ({ rank, wait: trainingWait(stackFile(rank, 'checkpoint')) })),
      {
        rank: 3,
        wait: waitOf([
          ...WAITS.checkpoint.slice(0, 2),
          { file: '/opt/train/ckpt.py', line: 9, function: 'save_checkpoint', code: 'os.fsync(fd)' },
        ]),
      },
    ])!;
    expect(v.suspects).toEqual([]);
    expect(v.text).toMatch(/no node stands out: every node is in checkpoint I\/O$/);
  });

  it('pipeline stages wait in different point-to-point calls by design: no desync, and a frozen node explains them', () => {
    const p2p = (call: string) => ({ kind: 'collective' as const, call, at: 'pipe.py:10' });
    const v = stackVerdict([
      { rank: 0, wait: p2p('send') },
      { rank: 1, wait: p2p('recv') },
      { rank: 2, wait: p2p('recv') },
      { rank: 3, wait: p2p('all_reduce') },
      { rank: 4, silentForMs: 300_000 },
    ])!;
    expect(v.suspects).toEqual([4]);
    expect(
      stackVerdict([
        { rank: 0, wait: p2p('send') },
        { rank: 1, wait: p2p('recv') },
        { rank: 2, wait: p2p('recv') },
      ])!.suspects,
    ).toEqual([]);
  });

  it('the minority of different collectives (ranks disagree on the order of calls)', () => {
    expect(run('allReduce', 'allReduce', 'barrier', 'allReduce')).toMatchObject({
      suspects: [2],
      family: 'distributed_timeout',
    });
  });

  it('every node in the same collective: no node stands out, and says where to look', () => {
    const v = run('allReduce', 'allReduce', 'allReduce')!;
    expect(v.suspects).toEqual([]);
    expect(v.family).toBe('distributed_timeout');
    expect(v.text).toMatch(/no node stands out: a rank outside these nodes or the network/);
  });

  it('a tie without a collective names nobody', () => {
    expect(run('dataLoader', 'forward')!.suspects).toEqual([]);
  });

  it('one node: names the kind of wait as the cause, no suspect', () => {
    const v = run('dataLoader')!;
    expect(v.suspects).toEqual([]);
    expect(v.text).toMatch(/^node 0 is in `DataLoader.__next__` .*: the data loader is the likely cause$/);
  });

  it('no stack at all: no verdict', () => {
    expect(stackVerdict([{ rank: 0 }, { rank: 1, silentForMs: 5000 }])).toBeUndefined();
  });
});

describe('a stack file is data from the training host', () => {
  it('parses what the client writes', () => {
    const p = parseStackFile(bytes(stackFile(3, 'allReduce')), 3);
    expect(p.ok).toBe(true);
  });

  it.each([
    ['too large', new Uint8Array(64 * 1024 + 1), /is 65537 bytes \(at most 65536\)/],
    ['not JSON', bytes('{"node_rank": 3,'), /stacks\/3\.json is not valid JSON/],
    ['another rank', bytes(stackFile(4, 'allReduce')), /node_rank is 4, not 3/],
    [
      'a frame too long',
      bytes({
        ...stackFile(3, 'allReduce'),
        threads: [{ frames: [{ file: 'x'.repeat(241), function: 'f' }] }],
      }),
      /threads\.0\.frames\.0\.file/,
    ],
    ['threads not a list', bytes({ node_rank: 3, threads: 'MainThread' }), /threads/],
  ])('%s: one line about that node, never a throw', (_name, body, problem) => {
    const p = parseStackFile(body, 3);
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.problem).toMatch(problem);
  });

  it('names reach alerts only as Python names: no links, mentions, markup or spaces', () => {
    const frames = [
      {
        file: '/opt/train/<!channel> http://evil.example/x.py',
        line: 3,
        function: 'f`<http://evil.example|click>`',
      },
    ];
    const w = waitOf(frames);
    expect(w.call).toBe('example?click>?');
    expect(w.at).toBe('x.py:3');
    for (const v of [w.call, w.blocks ?? '', w.at!.replace(/:3$/, '')])
      expect(v).not.toMatch(/[`: |/]|!channel/);
  });
});
