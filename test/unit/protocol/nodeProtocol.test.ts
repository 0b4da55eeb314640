import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../lambdas/core/base/errors.js';
import {
  MAX_JSON_BYTES,
  MAX_NODES,
  nodeFile,
  nodeKeyOf,
  parseMetadata,
  parseNodeFile,
  runFileOf,
} from '../../../lambdas/core/protocol/index.js';
import { bytes } from '../../support/fakes.js';

const FULL = {
  node_rank: 3,
  nodes: 16,
  instance_id: 'i-0abc1234def567890',
  hostname: 'ip-10-0-1-23.ec2.internal',
  last_updated: '2026-01-02T03:04:05.000Z',
  step: 5200,
  step_time_s: 1.42,
  samples_per_s: 90.1,
  tokens_per_s: 368_640,
  gpus: [
    {
      index: 0,
      util: 97,
      mem_used_mib: 70123,
      mem_total_mib: 81559,
      temp_c: 61,
      power_w: 612.5,
      ecc_uncorrected: 0,
      name: 'NVIDIA H100 80GB HBM3',
    },
  ],
  local_world_size: 8,
};

describe('node file keys', () => {
  it.each([
    ['nodes/0.json', 0],
    ['nodes/7.json', 7],
    [`nodes/${MAX_NODES - 1}.json`, MAX_NODES - 1],
  ])('recognises %s as node %i', (path, rank) => {
    expect(nodeKeyOf(path)).toEqual({ ok: true, rank });
    expect(nodeFile(rank)).toBe(path);
  });

  it.each([
    ['nodes/abc.json', /^"nodes\/abc\.json" is not a node file: the node rank must be a whole number$/],
    ['nodes/-1.json', /node rank -1 is negative$/],
    ['nodes/03.json', /node rank 03 has a leading zero \(write nodes\/3\.json\)$/],
    ['nodes/1.5.json', /must be a whole number$/],
    ['nodes/.json', /must be a whole number$/],
    [`nodes/${MAX_NODES}.json`, new RegExp(`node rank ${MAX_NODES} is above ${MAX_NODES - 1}$`)],
    ['nodes/99999999999999999999999.json', /node rank 999999999999… is above 4095$/],
    ['nodes/3.json.tmp', /expected nodes\/\{node_rank\}\.json$/],
    ['nodes/3', /expected nodes\/\{node_rank\}\.json$/],
    ['nodes/a/3.json', /expected nodes\/\{node_rank\}\.json$/],
  ])('rejects %s with a finding', (path, problem) => {
    const key = nodeKeyOf(path);
    expect(key?.ok).toBe(false);
    if (key && !key.ok) {
      expect(key.problem).toMatch(problem);
      expect(key.problem.length).toBeLessThan(200);
    }
  });

  it('leaves paths outside nodes/ alone, and v1 files are not node files', () => {
    for (const path of ['metadata.json', 'progress.json', 'logs/training_log_latest.txt', 'nodes.json'])
      expect(nodeKeyOf(path)).toBeUndefined();
    expect(runFileOf('nodes/0.json')).toBeUndefined();
  });

  it.each([-1, 1.5, MAX_NODES, Number.NaN])('refuses to name a file for rank %s', (rank) => {
    expect(() => nodeFile(rank)).toThrow(ProtocolError);
  });
});

describe('parseNodeFile', () => {
  it('accepts the full DESIGN example and keeps unknown fields, here and in gpus[]', () => {
    expect(parseNodeFile(bytes(FULL), 3)).toEqual({ ok: true, value: FULL, problems: [] });
  });

  it('needs only node_rank; GPU telemetry may be absent or unreadable (null)', () => {
    expect(parseNodeFile(bytes({ node_rank: 0 }))).toEqual({
      ok: true,
      value: { node_rank: 0 },
      problems: [],
    });
    const unreadable = { node_rank: 0, gpus: [{ index: 2, util: null, ecc_uncorrected: null }], step: null };
    expect(parseNodeFile(bytes(unreadable), 0)).toMatchObject({ ok: true, value: unreadable });
  });

  it.each([
    ['a missing node_rank', { nodes: 2 }, /^node file: node_rank: /],
    ['a string node_rank', { node_rank: '3' }, /^node file: node_rank: /],
    ['a negative node_rank', { node_rank: -1 }, /^node file: node_rank: /],
    ['a fractional node_rank', { node_rank: 1.5 }, /^node file: node_rank: /],
    ['a huge node_rank', { node_rank: MAX_NODES }, /^node file: node_rank: /],
    ['a rank not below nodes', { node_rank: 4, nodes: 4 }, /^node file: node_rank: node_rank must be below/],
    ['zero nodes', { node_rank: 0, nodes: 0 }, /^node file: nodes: /],
    ['a numeric instance_id', { node_rank: 0, instance_id: 12 }, /^node file: instance_id: /],
    ['a numeric hostname', { node_rank: 0, hostname: 7 }, /^node file: hostname: /],
    ['a boolean timestamp', { node_rank: 0, last_updated: true }, /^node file: last_updated: /],
    ['a string step', { node_rank: 0, step: '12' }, /^node file: step: /],
    ['a negative step time', { node_rank: 0, step_time_s: -1 }, /^node file: step_time_s: /],
    ['a string throughput', { node_rank: 0, tokens_per_s: 'fast' }, /^node file: tokens_per_s: /],
    ['gpus that are an object', { node_rank: 0, gpus: { 0: {} } }, /^node file: gpus: /],
    ['a GPU without an index', { node_rank: 0, gpus: [{ util: 5 }] }, /^node file: gpus\.0\.index: /],
    ['utilisation over 100', { node_rank: 0, gpus: [{ index: 0, util: 140 }] }, /gpus\.0\.util: /],
    [
      'a negative idle time',
      { node_rank: 0, gpus: [{ index: 3, util: 0, idle_s: -60 }] },
      /gpus\.0\.idle_s: /,
    ],
    [
      'a fractional ECC count',
      { node_rank: 0, gpus: [{ index: 1, ecc_uncorrected: 0.5 }] },
      /ecc_uncorrected/,
    ],
    [
      'a string memory reading',
      { node_rank: 0, gpus: [{ index: 0, mem_used_mib: '[N/A]' }] },
      /mem_used_mib/,
    ],
    ['a JSON array', [{ node_rank: 0 }], /^node file must be a JSON object$/],
    ['invalid JSON', '{"node_rank": 0', /^node file is not valid JSON \(/],
    ['an empty body', '', /^node file is empty$/],
  ])('rejects %s with a one-line finding naming the field', (_name, body, problem) => {
    const r = parseNodeFile(bytes(body));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problem).toMatch(problem);
      expect(r.problem).not.toContain('\n');
    }
  });

  it('names the file by the rank of its key, and refuses a body that claims another rank', () => {
    expect(parseNodeFile(bytes({ node_rank: 5 }), 2)).toEqual({
      ok: false,
      problem: 'nodes/2.json: node_rank is 5, not 2 as its name says',
    });
    const big = bytes(`{"node_rank": 1, "pad": "${'x'.repeat(MAX_JSON_BYTES)}"}`);
    expect(parseNodeFile(big, 1)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^nodes\/1\.json is \d+ bytes/),
    });
  });

  it.each([
    ['i-1', 'instance_id "i-1" is not a safe instanceId: ignored'],
    ["i-0abc1234'; reboot #", 'instance_id "i-0abc1234\'; reboot #" is not a safe instanceId: ignored'],
    ['mi-0123456789abcdef0', 'instance_id "mi-0123456789abcdef0" is not a safe instanceId: ignored'],
  ])("drops an unsafe instance_id %j as metadata.json's is dropped, keeping the rest", (id, problem) => {
    const r = parseNodeFile(bytes({ node_rank: 2, instance_id: id, step: 9, hostname: 'gpu-2' }), 2);
    expect(r).toEqual({
      ok: true,
      value: { node_rank: 2, step: 9, hostname: 'gpu-2' },
      problems: [`nodes/2.json: ${problem}`],
    });
  });

  it('keeps an instance_id that metadata.json would accept, and treats an empty one as absent', () => {
    expect(parseNodeFile(bytes({ node_rank: 0, instance_id: ' i-0abc1234 ' }))).toMatchObject({
      value: { instance_id: 'i-0abc1234' },
      problems: [],
    });
    expect(parseNodeFile(bytes({ node_rank: 0, instance_id: '' }))).toEqual({
      ok: true,
      value: { node_rank: 0 },
      problems: [],
    });
    expect(parseMetadata(bytes({ nodes: 16 })).ok).toBe(true);
    expect(parseMetadata(bytes({ nodes: 0 })).ok).toBe(false);
  });

  it.each([
    ['ip-10-0-1-23', true],
    ['gpu-st-p5-48xlarge-7.cluster.local', true],
    ['trainer-worker-3', true],
    ['node_7', true],
    ['$(reboot)', false],
    ['a b', false],
    ['-leading-dash', false],
    ['host\nname', false],
    ['x'.repeat(254), false],
    ['dots..twice', false],
    ['', false],
  ])('hostname %j is kept: %s', (hostname, kept) => {
    const r = parseNodeFile(bytes({ node_rank: 0, hostname }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.hostname).toBe(kept ? hostname : undefined);
    expect(r.problems).toHaveLength(kept ? 0 : 1);
  });
});
