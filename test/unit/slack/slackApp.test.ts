import { describe, expect, it } from 'vitest';
import {
  checkSlackSignature,
  signSlackRequest,
} from '../../../lambdas/adapters/channels/slack/slackSignature.js';
import type { Alert } from '../../../lambdas/core/model/alert.js';
import type { RunRecord } from '../../../lambdas/core/model/record.js';
import { ec2Platform } from '../../../lambdas/core/remediation/ec2Platform.js';
import { offersRestart } from '../../../lambdas/core/remediation/offer.js';
import { loadPolicy } from '../../../lambdas/core/remediation/policy/index.js';
import {
  ACTION,
  advance,
  afterAction,
  broadcasts,
  buttonValue,
  covers,
  ephemeral,
  mayClaim,
  mayDo,
  onCallButtons,
  parseButtonValue,
  runAnswer,
  type SlackThread,
  statusAnswer,
} from '../../../lambdas/core/slack/index.js';
import { remediationRequest } from '../../../lambdas/events/restartRequest.js';
import { slackRequest } from '../../../lambdas/events/slackRequest.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const alert = (o: Partial<Alert> = {}): Alert => ({
  id: 'r:2:transition',
  kind: 'transition',
  runId: 'r',
  state: 'FAILED',
  reason: 'boom',
  action: 'look',
  severity: 'critical',
  at: NOW,
  since: NOW - 1000,
  attempt: 1,
  s3Uri: 's3://b/r/',
  consoleUrl: 'https://console.aws.amazon.com/',
  ...o,
});
const thread = (o: Partial<SlackThread> = {}): SlackThread => ({
  channel: 'C0123ABCD',
  ts: '1.000001',
  attempt: 1,
  through: 1,
  state: 'WARNING',
  ...o,
});

describe('Slack request signatures', () => {
  const secret = '8f742231b10e8888abcd99yyyzzz85a5';
  const body = 'token=x&team_id=T1&command=%2Ftrainwatch&text=status';
  const ts = String(NOW / 1000);
  const good = signSlackRequest(secret, NOW / 1000, body);

  it.each([
    ['a good signature', ts, good, body, NOW, { ok: true }],
    [
      'one changed byte of the body',
      ts,
      good,
      `${body}x`,
      NOW,
      { ok: false, reason: 'signature does not match' },
    ],
    [
      'another secret',
      ts,
      signSlackRequest('0'.repeat(32), NOW / 1000, body),
      body,
      NOW,
      { ok: false, reason: 'signature does not match' },
    ],
    [
      'a signature of another length',
      ts,
      'v0=abc',
      body,
      NOW,
      { ok: false, reason: 'signature does not match' },
    ],
    ['a timestamp 5 min old (the edge)', ts, good, body, NOW + 300_000, { ok: true }],
    [
      'a timestamp 5 min 1 s old',
      ts,
      good,
      body,
      NOW + 301_000,
      { ok: false, reason: 'timestamp 301 s away from now (at most 300)' },
    ],
    [
      'a timestamp from the future',
      ts,
      good,
      body,
      NOW - 400_000,
      { ok: false, reason: 'timestamp 400 s away from now (at most 300)' },
    ],
    [
      'no signature',
      ts,
      undefined,
      body,
      NOW,
      { ok: false, reason: 'no X-Slack-Signature or X-Slack-Request-Timestamp' },
    ],
    [
      'a timestamp that is not a number',
      'soon',
      good,
      body,
      NOW,
      { ok: false, reason: 'malformed timestamp' },
    ],
  ] as const)('%s', (_name, timestamp, signature, raw, now, verdict) => {
    expect(checkSlackSignature(secret, timestamp, signature, raw, now)).toEqual(verdict);
  });

  it("matches Slack's documented example", () => {
    // https://api.slack.com/authentication/verifying-requests-from-slack
    const example =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(signSlackRequest('8f742231b10e8888abcd99yyyzzz85a5', 1531420618, example)).toBe(
      'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    );
  });
});

describe('threads', () => {
  it.each([
    ['no thread', undefined, alert(), false],
    ['the same attempt', thread(), alert(), true],
    ['an older attempt (a late retry)', thread({ attempt: 2, through: 2 }), alert({ attempt: 1 }), true],
    ['a new attempt someone else started', thread(), alert({ attempt: 2, state: 'RUNNING' }), false],
    [
      'the restart trainwatch issued',
      thread(),
      alert({ attempt: 2, state: 'RESTARTING', kind: 'remediation' }),
      true,
    ],
    ['a restart two attempts on', thread(), alert({ attempt: 3, state: 'RESTARTING' }), false],
  ] as const)('covers %s: %s', (_name, t, a, expected) => {
    expect(covers(t, a)).toBe(expected);
  });

  it('after a carried-over restart, the new attempt stays in the thread', () => {
    const t = advance(thread(), alert({ attempt: 2, state: 'RESTARTING' }));
    expect(t).toMatchObject({ attempt: 1, through: 2, state: 'RESTARTING' });
    expect(covers(t, alert({ attempt: 2, state: 'RUNNING' }))).toBe(true);
  });

  it.each([
    ['WARNING → FAILED', 'WARNING', alert({ state: 'FAILED' }), true],
    ['STALLED → TIMED_OUT', 'STALLED', alert({ state: 'TIMED_OUT' }), true],
    ['FAILED → TIMED_OUT (as bad)', 'FAILED', alert({ state: 'TIMED_OUT' }), false],
    ['STALLED → RESTARTING', 'STALLED', alert({ state: 'RESTARTING' }), false],
    ['a reminder', 'WARNING', alert({ state: 'FAILED', kind: 'reminder' }), false],
    ['RUNNING → WARNING', 'RUNNING', alert({ state: 'WARNING' }), true],
  ] as const)('broadcasts %s: %s', (_name, state, a, expected) => {
    expect(broadcasts(thread({ state }), a)).toBe(expected);
  });

  it('lets one sender claim the parent: a live claim holds others off, until it expires or the attempt moves on', () => {
    const claimed = thread({ ts: undefined, claim: { owner: 'a', until: NOW + 30_000 } });
    expect(mayClaim(undefined, alert(), NOW, 'b')).toBe(true);
    expect(mayClaim(thread(), alert(), NOW, 'b')).toBe(false);
    expect(mayClaim(claimed, alert(), NOW, 'b')).toBe(false);
    expect(mayClaim(claimed, alert(), NOW, 'a')).toBe(true);
    expect(mayClaim(claimed, alert(), NOW + 30_000, 'b')).toBe(true);
    expect(mayClaim(claimed, alert({ attempt: 2 }), NOW, 'b')).toBe(true);
    expect(mayClaim(thread(), alert({ attempt: 2, state: 'RUNNING' }), NOW, 'b')).toBe(true);
  });
});

describe('buttons', () => {
  const ids = (a: Alert, restart = false) =>
    onCallButtons(a, { restart }).map((b) => (b as { action_id: string }).action_id);

  it('offers Acknowledge and the three silences on an unhealthy alert, nothing on a healthy one', () => {
    expect(ids(alert())).toEqual([ACTION.ack, ACTION.silence1h, ACTION.silence4h, ACTION.silenceResolved]);
    expect(ids(alert({ state: 'RUNNING' }))).toEqual([]);
    expect(ids(alert({ kind: 'group', runs: [] }))).toEqual([]);
    expect(ids(alert({ kind: 'acknowledgement' }))).not.toContain(ACTION.ack);
  });

  it('offers Restart now only where remediation offered it and someone may press it, behind a confirmation', () => {
    expect(ids(alert({ offersRestart: true }), false)).not.toContain(ACTION.restart);
    expect(ids(alert(), true)).not.toContain(ACTION.restart);
    const [restart] = onCallButtons(alert({ offersRestart: true }), { restart: true }).slice(-1) as {
      action_id: string;
      confirm: { title: { text: string } };
      style: string;
    }[];
    expect(restart).toMatchObject({
      action_id: ACTION.restart,
      style: 'danger',
      confirm: { title: { text: 'Restart this run?' } },
    });
  });

  it('carries the run and where it was, and reads back only its own values', () => {
    const target = { runId: 'llama-7b.ft_2', state: 'STALLED' as const, attempt: 3, since: NOW };
    expect(parseButtonValue(buttonValue(target))).toEqual(target);
    expect(buttonValue(target).length).toBeLessThan(2000);
    for (const bad of ['', 'x', '{}', '{"r":"a","s":"NOPE","a":1,"t":1}', '{"r":1,"s":"FAILED","a":1,"t":1}'])
      expect(parseButtonValue(bad)).toBeUndefined();
  });

  it('replaces the clicked message: the buttons of what was done go, a line says who', () => {
    const blocks = [
      { type: 'header' },
      { type: 'actions', elements: onCallButtons(alert(), { restart: false }) },
    ];
    const after = afterAction({ text: 't', blocks }, 'U0MARIA01', { kind: 'ack' });
    const json = JSON.stringify(after.blocks);
    expect(json).not.toContain(ACTION.ack);
    expect(json).toContain(ACTION.silence1h);
    expect(json).toContain('Acknowledged by <@U0MARIA01>');
    expect(JSON.stringify(afterAction({ blocks }, '<!channel>', { kind: 'ack' }).blocks)).not.toContain(
      '<!channel>',
    );
  });

  it('escapes what it tells one person', () => {
    expect(ephemeral('already acknowledged by <!channel> & co').text).toBe(
      'already acknowledged by &lt;!channel&gt; &amp; co',
    );
  });
});

describe('who may press what', () => {
  const groups = async (id: string) => (id === 'S0ONCALL1' ? ['U0BOBOB02'] : undefined);
  const p = { ack: ['*'], silence: ['U0MARIA01', 'S0ONCALL1'], restart: [] };
  it.each([
    ['anyone acknowledges', 'ack', 'U0ANYONE1', true],
    ['a listed user silences', 'silence', 'U0MARIA01', true],
    ['a member of a listed group silences', 'silence', 'U0BOBOB02', true],
    ['someone else does not', 'silence', 'U0ANYONE1', false],
    ['nobody restarts by default', 'restart', 'U0MARIA01', false],
  ] as const)('%s', async (_name, what, user, expected) => {
    expect(await mayDo(p, what, user, groups)).toBe(expected);
  });
});

describe('restart offers', () => {
  const policy = loadPolicy(JSON.stringify({ extends: 'transient' }));
  const rec = { state: 'FAILED', attempt: 1 } as RunRecord;
  const settings = { policy, profile: 'production', commands: {}, restartDocument: 'doc' };
  const probe = { ok: true as const, summary: { lines: [] } as never };
  const a = (errorType: string | null, restarts = 0, job = true) => {
    const target = job ? { job: { command: 'x' }, problems: [] } : { problems: [] };
    // On EC2: a restart needs a command for the job and the restart document (ec2Platform's cannotRestart).
    return {
      errorType,
      restarts,
      seen: { probe },
      target,
      platform: ec2Platform({ settings } as never, target),
    } as never;
  };
  const held = {
    action: 'alert' as const,
    mode: 'crash' as const,
    reason: 'not restarting: the process is still running',
  };
  it.each([
    ['the policy lists it and the probe held it back', a('nccl_timeout'), held, true],
    ['the policy excludes it', a('oom'), held, false],
    ['the budget is spent', a('nccl_timeout', 3), held, false],
    ['it is restarting already', a('nccl_timeout'), { ...held, action: 'restart' as const }, false],
    ['no restart command', a('nccl_timeout', 0, false), held, false],
  ])('%s', (_name, assessment, decision, expected) => {
    expect(offersRestart(rec, assessment, decision, settings)).toBe(expected);
  });
});

describe('parsing', () => {
  it('reads a restart request as a remediation request with who asked, and still reads transitions', () => {
    const request = {
      'detail-type': 'Training Run Restart Requested',
      detail: { runId: 'r-1', state: 'FAILED', id: 'slack:T1', requestedBy: '@maria' },
    };
    expect(remediationRequest(request)).toEqual({
      ok: true,
      data: { runId: 'r-1', state: 'FAILED', alertId: 'slack:T1', requestedBy: '@maria' },
    });
    expect(remediationRequest(JSON.stringify(request)).ok).toBe(true);
    expect(remediationRequest({ ...request, detail: { ...request.detail, state: 'RUNNING' } }).ok).toBe(
      false,
    );
    const transition = {
      detail: { kind: 'transition', state: 'STALLED', runId: 'r-2', id: 'r-2:4:transition' },
    };
    expect(remediationRequest(transition)).toEqual({
      ok: true,
      data: { runId: 'r-2', state: 'STALLED', alertId: 'r-2:4:transition' },
    });
  });

  it('tells a button click from a slash command from anything else', () => {
    const click = {
      type: 'block_actions',
      user: { id: 'U0MARIA01' },
      actions: [{ action_id: ACTION.ack, value: 'v' }],
    };
    expect(slackRequest(new URLSearchParams({ payload: JSON.stringify(click) }).toString()).kind).toBe(
      'actions',
    );
    expect(slackRequest('command=%2Ftrainwatch&text=status&user_id=U0MARIA01')).toMatchObject({
      kind: 'command',
      command: { command: '/trainwatch', text: 'status', userId: 'U0MARIA01' },
    });
    expect(slackRequest('payload=%7Bnot').kind).toBe('unknown');
    expect(
      slackRequest(
        new URLSearchParams({ payload: JSON.stringify({ ...click, user: { id: 'maria' } }) }).toString(),
      ).kind,
    ).toBe('unknown');
  });
});

describe('/trainwatch status', () => {
  const rec = (o: Partial<RunRecord>): RunRecord =>
    ({
      runId: 'a',
      state: 'RUNNING',
      reason: 'fine',
      attempt: 1,
      version: 1,
      since: NOW,
      updatedAt: NOW,
      firstSeenAt: NOW,
      facts: { etags: {} },
      ...o,
    }) as RunRecord;

  it('lists the unhealthy runs first, in a code block nothing in it can break out of', () => {
    const answer = statusAnswer(
      [
        rec({ runId: 'ok-1' }),
        rec({ runId: 'bad-1', state: 'FAILED', reason: 'x ``` <!channel> <https://e.example|y> *b*' }),
      ],
      NOW + 60_000,
    );
    expect(answer.response_type).toBe('ephemeral');
    const text = (answer.blocks![1] as { text: { text: string } }).text.text;
    expect(text.indexOf('bad-1')).toBeLessThan(text.indexOf('ok-1'));
    expect(text.match(/```/g)).toHaveLength(2);
    expect(text).not.toMatch(/<[!h]/);
    expect(text).toContain('&lt;!channel&gt;');
  });

  it('cuts a long table at a row, within a section', () => {
    const many = Array.from({ length: 200 }, (_, i) => rec({ runId: `run-${i}`, reason: 'r'.repeat(80) }));
    const text = (statusAnswer(many, NOW).blocks![1] as { text: { text: string } }).text.text;
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(text).toMatch(/… and \d+ more```$/);
  });

  it('answers one run with its history', () => {
    const r = rec({
      runId: 'one',
      state: 'STALLED',
      ack: { by: '@maria', at: NOW, since: NOW, state: 'STALLED' },
    });
    const flips = [
      {
        runId: 'one',
        from: 'RUNNING' as const,
        to: 'STALLED' as const,
        reason: 'step 7 stuck',
        at: NOW,
        attempt: 1,
        version: 2,
      },
    ];
    const text = JSON.stringify(runAnswer(r, flips, NOW + 5000).blocks);
    expect(text).toContain('ack:      @maria');
    expect(text).toContain('RUNNING -&gt; STALLED  step 7 stuck');
  });
});
