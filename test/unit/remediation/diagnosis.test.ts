import { describe, expect, it } from 'vitest';
import { parseDiagnosis, summarize } from '../../../lambdas/core/remediation/diagnosis/index.js';

const BASE = ['tw.version=1', 'run_id=r', 'host=ip-10-0-0-1', 'time=1700000000', 'process.source=pidfile'];

function diag(...lines: string[]) {
  return parseDiagnosis([...BASE, ...lines, 'end=ok'].join('\n'));
}

describe('parseDiagnosis', () => {
  it('reads process, GPUs, disks, memory and transport facts', () => {
    const d = diag(
      'process.pid=4242',
      'process.alive=true',
      'gpu=0, NVIDIA H100 80GB HBM3, 97, 70123, 81559, 61, 0, 0, 00000000:53:00.0',
      'gpu=1, NVIDIA H100 80GB HBM3, [N/A], [Not Supported], 81559, 60, [N/A], [N/A], 00000000:64:00.0',
      'disk=/checkpoints,1000,990,10,99%,/checkpoints',
      'inode=/checkpoints,100,10,90,10%',
      'mem.total_kb=2000000',
      'mem.available_kb=50000',
      'cgroup.version=2',
      'cgroup.oom_kill=3',
      'nccl.transport=socket',
      'efa.devices=4',
      'log=step 10',
    );
    expect(d).toMatchObject({
      host: 'ip-10-0-0-1',
      at: 1_700_000_000_000,
      processAlive: true,
      pids: [4242],
      cgroupVersion: '2',
      cgroupOomKills: 3,
      ncclTransport: 'socket',
      efaDevices: 4,
      truncated: false,
      logTail: ['step 10'],
    });
    expect(d.gpus[0]).toEqual({
      index: 0,
      name: 'NVIDIA H100 80GB HBM3',
      utilizationPct: 97,
      memoryUsedMiB: 70123,
      memoryTotalMiB: 81559,
      temperatureC: 61,
      eccUncorrectedVolatile: 0,
      eccUncorrectedAggregate: 0,
    });
    expect(d.gpus[1]).toMatchObject({
      utilizationPct: null,
      memoryUsedMiB: null,
      eccUncorrectedVolatile: null,
    });
    expect(d.gpus[1]!.error).toBeUndefined();
    expect(d.disks).toEqual([
      { path: '/checkpoints', mount: '/checkpoints', usedPct: 99, availKiB: 10, inodeUsedPct: 10 },
    ]);
  });

  it('flags output without the end marker as truncated (SSM cuts stdout at 24,000 characters)', () => {
    expect(parseDiagnosis([...BASE, 'process.alive=false', 'log=partial li'].join('\n')).truncated).toBe(
      true,
    );
  });

  it('keeps garbage aside instead of throwing', () => {
    const d = parseDiagnosis('garbage without equals\n\u0000\n=novalue\nprocess.alive=maybe\nend=ok');
    expect(d.processAlive).toBeNull();
    expect(d.unparsed.length).toBeGreaterThan(0);
  });
});

describe('summarize', () => {
  it('names the GPU of an Xid by matching PCI addresses, and says the node must go', () => {
    const s = summarize(
      diag(
        'process.alive=false',
        'gpu=3, NVIDIA H100 80GB HBM3, 0, 0, 81559, 40, 0, 0, 00000000:86:00.0',
        "xid=[86412.118305] NVRM: Xid (PCI:0000:86:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
        'xid=[86412.118310] NVRM: GPU 0000:86:00.0: GPU has fallen off the bus.',
      ),
    );
    expect(s.lines[0]).toBe('GPU 3: Xid 79, fallen off the bus — replace the node');
    expect(s.lines.filter((l) => l.includes('Xid 79'))).toHaveLength(1);
    expect(s.gpuFailure).toBe(s.lines[0]);
  });

  it('treats application Xids as information, not a dead node', () => {
    const s = summarize(
      diag('process.alive=false', 'xid=NVRM: Xid (PCI:0000:53:00): 13, pid=1234, Graphics Exception'),
    );
    expect(s.gpuFailure).toBeUndefined();
    expect(s.lines).toContain(
      'GPU at 0000:53:00: Xid 13, graphics engine exception (usually the application)',
    );
  });

  it.each([
    [
      'disk=/checkpoints,1000,1000,0,100%,/checkpoints',
      'disk /checkpoints 100% full — free space before restarting',
    ],
    ['disk=/data/ckpt,1000,500,500,50%,/data', undefined],
  ])('%s → disk full: %s', (line, full) => {
    const s = summarize(
      diag(
        'process.alive=false',
        line,
        line.startsWith('disk=/data') ? 'inode=/data/ckpt,100,99,1,99%' : 'inode=/checkpoints,100,1,99,1%',
      ),
    );
    if (full) expect(s.diskFull).toBe(full);
    else expect(s.diskFull).toMatch(/\/data\/ckpt \(\/data\) out of inodes \(99% used\)/);
  });

  it('says NCCL runs over sockets where EFA was expected', () => {
    expect(summarize(diag('process.alive=true', 'nccl.transport=socket', 'efa.devices=32')).lines).toContain(
      'NCCL over NET/Socket, EFA expected (32 EFA devices present) — check the aws-ofi-nccl plugin',
    );
    expect(
      summarize(diag('process.alive=true', 'nccl.transport=socket', 'efa.devices=0')).lines.join(),
    ).not.toContain('EFA expected');
  });

  it('reports the process state in words', () => {
    expect(summarize(diag('process.alive=false')).lines).toContain('process not running');
    expect(summarize(diag('process.alive=true', 'process.pid=7')).lines).toContain('process running (PID 7)');
    expect(summarize(diag('process.alive=unknown')).processAlive).toBeNull();
  });
});
