import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetCommandInvocationCommand, SendCommandCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  INLINE_OUTPUT_LIMIT,
  SsmCommandRunner,
} from '../../lambdas/adapters/platforms/ec2/ssmCommandRunner.js';

const ssm = mockClient(SSMClient);
const s3 = mockClient(S3Client);
const ID = 'i-0123456789abcdef0';
let clock = 0;
const runner = () =>
  new SsmCommandRunner(
    new SSMClient({ region: 'us-east-1' }),
    new S3Client({ region: 'us-east-1' }),
    { bucket: 'b', prefix: 'out' },
    {
      pollMs: 1000,
      clock: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
    },
  );
const req = { instanceId: ID, document: 'doc', parameters: { RunId: 'r' }, timeoutSeconds: 60 };
const err = (name: string) => Object.assign(new Error(`${name} happened`), { name });

beforeEach(() => {
  ssm.reset();
  s3.reset();
  clock = 0;
  ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'cmd-1' } });
});

describe('SsmCommandRunner faults (aws-sdk-client-mock: what moto cannot produce)', () => {
  it('turns InvalidInstanceId into a finding about an unmanaged or terminated instance', async () => {
    ssm.on(SendCommandCommand).rejects(err('InvalidInstanceId'));
    expect(await runner().run(req)).toMatchObject({
      ok: false,
      status: 'InvalidInstance',
      finding: `instance ${ID} is not managed by SSM (terminated, stopped, or its agent is not registered)`,
    });
  });

  it('explains an AccessDenied as the managed-tag condition', async () => {
    ssm.on(SendCommandCommand).rejects(err('AccessDeniedException'));
    expect((await runner().run(req)).finding).toMatch(/tagged with the stack's managed tag/);
  });

  it('rejects an instance id of the wrong shape without calling SSM', async () => {
    expect(await runner().run({ ...req, instanceId: 'i-123; reboot' })).toMatchObject({
      ok: false,
      status: 'InvalidInstance',
    });
    expect(ssm.commandCalls(SendCommandCommand)).toHaveLength(0);
  });

  it('keeps polling through InvocationDoesNotExist and Pending with growing waits, then succeeds', async () => {
    ssm
      .on(GetCommandInvocationCommand)
      .rejectsOnce(err('InvocationDoesNotExist'))
      .resolvesOnce({ Status: 'Pending' })
      .resolvesOnce({ Status: 'InProgress' })
      .resolves({
        Status: 'Success',
        StatusDetails: 'Success',
        ResponseCode: 0,
        StandardOutputContent: 'end=ok\n',
      });
    const r = await runner().run(req);
    expect(r).toMatchObject({
      ok: true,
      status: 'Success',
      output: 'end=ok\n',
      exitCode: 0,
      commandId: 'cmd-1',
    });
    expect(clock).toBe(1000 + 1500 + 2250 + 3375);
    const sent = ssm.commandCalls(SendCommandCommand)[0]!.args[0].input;
    expect(sent).toMatchObject({
      InstanceIds: [ID],
      DocumentName: 'doc',
      Parameters: { RunId: ['r'] },
      OutputS3BucketName: 'b',
      OutputS3KeyPrefix: 'out',
    });
  });

  it('reports an agent that never picks the command up as offline once the deadline passes', async () => {
    ssm.on(GetCommandInvocationCommand).resolves({ Status: 'Pending' });
    const r = await runner().run(req);
    expect(r).toMatchObject({ ok: false, status: 'Undeliverable' });
    expect(r.finding).toMatch(/did not pick up the command within 60s/);
    // Backoff caps at 5 s: about a dozen polls for a minute, not a retry storm.
    expect(ssm.commandCalls(GetCommandInvocationCommand).length).toBeLessThan(20);
  });

  it.each([
    [
      { Status: 'TimedOut', StatusDetails: 'DeliveryTimedOut' },
      'Undeliverable',
      /offline \(DeliveryTimedOut\)/,
    ],
    [{ Status: 'Failed', StatusDetails: 'Undeliverable' }, 'Undeliverable', /offline \(Undeliverable\)/],
    [{ Status: 'TimedOut', StatusDetails: 'ExecutionTimedOut' }, 'TimedOut', /timed out on/],
    [
      {
        Status: 'Failed',
        StatusDetails: 'Failed',
        ResponseCode: 3,
        StandardErrorContent: 'x\nrestart refused',
      },
      'Failed',
      /exit 3: restart refused/,
    ],
  ])('maps %j to %s', async (inv, status, finding) => {
    ssm.on(GetCommandInvocationCommand).resolves(inv as never);
    const r = await runner().run(req);
    expect(r.status).toBe(status);
    expect(r.finding).toMatch(finding);
  });

  it('reads the full output from S3 when SSM cut it at 24,000 characters', async () => {
    const full = `${'log=x\n'.repeat(5000)}end=ok\n`;
    ssm.on(GetCommandInvocationCommand).resolves({
      Status: 'Success',
      ResponseCode: 0,
      StandardOutputContent: full.slice(0, INLINE_OUTPUT_LIMIT),
    });
    s3.on(ListObjectsV2Command, { Bucket: 'b', Prefix: `out/cmd-1/${ID}/` }).resolves({
      Contents: [{ Key: `out/cmd-1/${ID}/awsrunShellScript/diagnose/stdout` }],
    });
    s3.on(GetObjectCommand, {
      Bucket: 'b',
      Key: `out/cmd-1/${ID}/awsrunShellScript/diagnose/stdout`,
    }).resolves({
      Body: { transformToString: async () => full } as never,
    });
    expect((await runner().run(req)).output).toBe(full);
  });

  it('keeps the cut output when S3 has none (the parser then flags it as incomplete)', async () => {
    ssm.on(GetCommandInvocationCommand).resolves({
      Status: 'Success',
      ResponseCode: 0,
      StandardOutputContent: 'x'.repeat(INLINE_OUTPUT_LIMIT),
    });
    s3.on(ListObjectsV2Command).rejects(err('AccessDenied'));
    expect((await runner().run(req)).output).toHaveLength(INLINE_OUTPUT_LIMIT);
  });

  it('fans one document out to 120 instances in SendCommand batches of 50, one result each', async () => {
    const ids = Array.from({ length: 120 }, (_, i) => `i-${i.toString(16).padStart(17, '0')}`);
    ssm.on(GetCommandInvocationCommand).callsFake((input: { InstanceId: string }) => ({
      Status: 'Success',
      ResponseCode: 0,
      StandardOutputContent: `host=${input.InstanceId}\nend=ok\n`,
    }));
    const results = await runner().runOnEach({ ...req, instanceIds: ids });
    expect(ssm.commandCalls(SendCommandCommand).map((c) => c.args[0].input.InstanceIds?.length)).toEqual([
      50, 50, 20,
    ]);
    expect(results.size).toBe(120);
    expect(results.get(ids[77]!)).toMatchObject({ ok: true, output: `host=${ids[77]}\nend=ok\n` });
  });

  it('resends a batch refused for one unmanaged instance one by one, so the others still answer', async () => {
    const bad = 'i-0000000000000000b';
    ssm.on(SendCommandCommand).callsFake((input: { InstanceIds: string[] }) => {
      if (input.InstanceIds.includes(bad)) throw err('InvalidInstanceId');
      return { Command: { CommandId: `cmd-${input.InstanceIds[0]}` } };
    });
    ssm
      .on(GetCommandInvocationCommand)
      .resolves({ Status: 'Success', ResponseCode: 0, StandardOutputContent: 'end=ok\n' });
    const results = await runner().runOnEach({ ...req, instanceIds: [ID, bad, 'not-an-id'] });
    expect(results.get(ID)).toMatchObject({ ok: true, status: 'Success' });
    expect(results.get(bad)).toMatchObject({ ok: false, status: 'InvalidInstance' });
    expect(results.get('not-an-id')).toMatchObject({ ok: false, status: 'InvalidInstance' });
  });
});
