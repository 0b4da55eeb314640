import { describe, expect, it } from 'vitest';
import type { Alert } from '../../../lambdas/core/model/alert.js';
import { formatCount, progressBar, progressText } from '../../../lambdas/core/render/progress.js';
import { escapeMrkdwn, SLACK_LIMITS, slackMessage } from '../../../lambdas/core/render/slack.js';
import { snsMessage, toAscii } from '../../../lambdas/core/render/text.js';

const H = 3_600_000;

function alert(overrides: Partial<Alert> = {}): Alert {
  return {
    id: 'run-42:3:transition',
    kind: 'transition',
    runId: 'run-42',
    state: 'FAILED',
    previousState: 'RUNNING',
    reason: 'CUDA out of memory. Tried to allocate 2.50 GiB',
    action: 'Reduce batch size or sequence length (or enable activation checkpointing), then resume',
    severity: 'critical',
    at: Date.UTC(2025, 0, 2, 3, 4, 5),
    attempt: 2,
    errorType: 'oom',
    instanceId: 'i-0abc123def4567890',
    jobName: 'llama-ft',
    phase: 'training',
    durationMs: 5 * H + 12 * 60_000,
    step: 5200,
    totalSteps: 10_000,
    etaMs: 3 * H + 12 * 60_000,
    loss: 2.345678,
    lastLogLine: 'torch.OutOfMemoryError: CUDA out of memory',
    details: ['GPU memory 79.1/80 GiB on 8 GPUs', 'Restart not attempted: policy none'],
    s3Uri: 's3://bucket/training-runs/run-42/',
    consoleUrl:
      'https://s3.console.aws.amazon.com/s3/buckets/bucket?region=us-east-1&prefix=training-runs%2Frun-42%2F',
    ...overrides,
  };
}

type Block = {
  type: string;
  text?: { text: string };
  fields?: { text: string }[];
  elements?: { text: string; url?: string }[];
};
const blocksOf = (a: Alert) => slackMessage(a).blocks as Block[];
const allText = (a: Alert) => JSON.stringify(slackMessage(a));

describe('progress', () => {
  it('draws a bar and a percentage', () => {
    expect(progressBar(5200, 10_000, 10)).toBe('█████░░░░░ 52%');
    expect(progressBar(10_000, 10_000, 4)).toBe('████ 100%');
    expect(progressBar(0, 10_000, 4)).toBe('░░░░ 0%');
  });

  it('clamps steps beyond the total and draws nothing without a total', () => {
    expect(progressBar(12_000, 10_000, 4)).toBe('████ 100%');
    expect(progressBar(5, undefined)).toBe('');
    expect(progressBar(5, 0)).toBe('');
  });

  it('shows only 100% at the very last step', () => {
    expect(progressBar(9_999, 10_000, 10)).toBe('█████████░ 99%');
  });

  it('writes step, total, percentage and ETA', () => {
    expect(progressText({ step: 5200, totalSteps: 10_000, etaMs: 3 * H + 12 * 60_000 })).toBe(
      'step 5,200 / 10,000 (52%) · ETA 3h 12m',
    );
    expect(progressText({ step: 1_234_567 })).toBe('step 1,234,567');
    expect(progressText({ step: 10, totalSteps: 10, etaMs: 5 })).toBe('step 10 / 10 (100%)');
    expect(progressText({})).toBeUndefined();
  });

  it('groups thousands without locale data', () => {
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1,000');
    expect(formatCount(-1234.5)).toBe('-1,234.5');
  });
});

describe('slackMessage', () => {
  it('leads with a state emoji, the run and its state', () => {
    const [header] = blocksOf(alert());
    expect(header).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: ':x: run-42 — FAILED', emoji: true },
    });
    expect(blocksOf(alert({ state: 'SUCCEEDED' }))[0]!.text!.text).toBe(
      ':white_check_mark: run-42 — SUCCEEDED',
    );
    expect(blocksOf(alert({ kind: 'reminder' }))[0]!.text!.text).toBe(':x: run-42 — FAILED (reminder)');
  });

  it('gives the reason, then a bold action', () => {
    const blocks = blocksOf(alert());
    expect(blocks[1]!.text!.text).toBe('CUDA out of memory. Tried to allocate 2.50 GiB');
    expect(blocks[2]!.text!.text).toBe(`*Action:* ${alert().action}`);
  });

  it('lists every present fact as a field', () => {
    const fields = blocksOf(alert())
      .find((b) => b.fields)!
      .fields!.map((f) => f.text);
    expect(fields).toEqual([
      '*Instance*\n`i-0abc123def4567890`',
      '*Job*\nllama-ft',
      '*Phase*\ntraining',
      '*Attempt*\n2',
      '*Duration*\n5h 12m',
      '*Error type*\n`oom`',
      '*Previous state*\nRUNNING',
      '*Progress*\nstep 5,200 / 10,000 (52%) · ETA 3h 12m',
      '*Loss*\n2.346',
    ]);
  });

  it('shows the learning rate as a field after the loss: the tenth, the most Slack takes', () => {
    const fields = blocksOf(alert({ learningRate: 0.000299999 }))
      .find((b) => b.fields)!
      .fields!.map((f) => f.text);
    expect(fields).toHaveLength(SLACK_LIMITS.fields);
    expect(fields.slice(-2)).toEqual(['*Loss*\n2.346', '*Learning rate*\n0.0003']);
  });

  it('leaves out facts that are absent, and blocks that would be empty', () => {
    const bare = alert({
      instanceId: undefined,
      jobName: undefined,
      phase: undefined,
      durationMs: undefined,
      errorType: null,
      previousState: undefined,
      step: undefined,
      loss: undefined,
      details: undefined,
      lastLogLine: undefined,
    });
    const blocks = blocksOf(bare);
    expect(blocks.find((b) => b.fields)!.fields!.map((f) => f.text)).toEqual(['*Attempt*\n2']);
    expect(blocks.map((b) => b.type)).toEqual([
      'header',
      'section',
      'section',
      'section',
      'context',
      'actions',
    ]);
    expect(allText(bare)).not.toContain('undefined');
  });

  it('shows details, the last log line as code, the S3 URI and a console button', () => {
    const blocks = blocksOf(alert());
    expect(blocks[4]!.text!.text).toBe(
      '• GPU memory 79.1/80 GiB on 8 GPUs\n• Restart not attempted: policy none',
    );
    const context = blocks.find((b) => b.type === 'context')!;
    expect(context.elements!.map((e) => e.text)).toEqual([
      '`torch.OutOfMemoryError: CUDA out of memory`',
      's3://bucket/training-runs/run-42/',
    ]);
    const actions = blocks.find((b) => b.type === 'actions')!;
    expect(actions.elements![0]!.url).toBe(alert().consoleUrl);
  });

  it('escapes log and reason text so it cannot mention @channel or inject links', () => {
    const hostile = alert({
      reason: 'boom <!channel> & <https://evil.example|click>',
      lastLogLine: 'x <!here> `rm` & <@U123>',
      jobName: '<!everyone>',
      details: ['<!subteam^S1>'],
    });
    const json = allText(hostile);
    expect(json).not.toMatch(/<!|<@|<https/);
    const blocks = blocksOf(hostile);
    expect(blocks[1]!.text!.text).toBe('boom &lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;');
    expect(blocks.find((b) => b.type === 'context')!.elements![0]!.text).toBe(
      "`x &lt;!here&gt; 'rm' &amp; &lt;@U123&gt;`",
    );
    expect(slackMessage(hostile).text).toContain('&lt;!channel&gt;');
    expect(escapeMrkdwn('a&b<c>d')).toBe('a&amp;b&lt;c&gt;d');
  });

  it('stays within Slack limits whatever the content size', () => {
    const huge = 'é&<'.repeat(5000);
    const msg = slackMessage(
      alert({
        runId: `run-${'x'.repeat(300)}`,
        reason: huge,
        action: huge,
        jobName: huge,
        lastLogLine: huge,
        details: Array.from({ length: 100 }, () => huge),
      }),
    );
    const blocks = msg.blocks as Block[];
    expect(blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
    expect(blocks[0]!.text!.text.length).toBeLessThanOrEqual(150);
    expect(blocks[0]!.text!.text.endsWith('…')).toBe(true);
    for (const b of blocks) {
      if (b.type === 'section' && b.text) expect(b.text.text.length).toBeLessThanOrEqual(3000);
      for (const f of b.fields ?? []) expect(f.text.length).toBeLessThanOrEqual(2000);
      expect((b.fields ?? []).length).toBeLessThanOrEqual(10);
      for (const e of b.type === 'context' ? b.elements! : [])
        expect(e.text.length).toBeLessThanOrEqual(2000);
    }
    expect(blocks[1]!.text!.text.endsWith('…')).toBe(true);
    // Truncation never leaves half an entity such as "&am" behind.
    expect(blocks[1]!.text!.text).toMatch(/(&amp;|&lt;|é)…$/);
    expect(msg.text.length).toBeLessThanOrEqual(SLACK_LIMITS.fallbackText);
  });

  it('drops the button rather than send a URL Slack would reject', () => {
    const types = blocksOf(alert({ consoleUrl: 'not a url' })).map((b) => b.type);
    expect(types).not.toContain('actions');
  });
});

describe('snsMessage', () => {
  it('writes a short ASCII subject naming run, state and reason', () => {
    expect(snsMessage(alert()).subject).toBe(
      '[trainwatch] run-42 FAILED: CUDA out of memory. Tried to allocate 2.50 GiB',
    );
    expect(snsMessage(alert({ kind: 'reminder' })).subject).toMatch(/^\[trainwatch\] run-42 still FAILED: /);
  });

  it('keeps the subject ASCII, on one line and within 100 characters', () => {
    const { subject } = snsMessage(
      alert({ reason: `Überlauf — “loss” = NaN 🔥\nTraceback (most recent call last):\n${'x'.repeat(500)}` }),
    );
    expect(subject).toMatch(/^[\x20-\x7E]+$/);
    expect(subject.length).toBeLessThanOrEqual(100);
    expect(subject).toBe('[trainwatch] run-42 FAILED: Uberlauf - "loss" = NaN ?');
    const long = snsMessage(alert({ reason: 'y'.repeat(500) })).subject;
    expect(long.length).toBe(100);
    expect(long.endsWith('...')).toBe(true);
  });

  it('writes a body with every present fact, the action, details, log line and links', () => {
    const { body } = snsMessage(alert());
    expect(body).toBe(
      [
        'Run run-42 is FAILED (was RUNNING).',
        '',
        'CUDA out of memory. Tried to allocate 2.50 GiB',
        '',
        `Action: ${alert().action}`,
        '',
        'Instance:       i-0abc123def4567890',
        'Job:            llama-ft',
        'Phase:          training',
        'Attempt:        2',
        'Duration:       5h 12m',
        'Error type:     oom',
        'Previous state: RUNNING',
        'Progress:       step 5,200 / 10,000 (52%) · ETA 3h 12m',
        'Loss:           2.346',
        'At:             2025-01-02T03:04:05.000Z',
        '',
        'Details:',
        '- GPU memory 79.1/80 GiB on 8 GPUs',
        '- Restart not attempted: policy none',
        '',
        'Last log line:',
        '  torch.OutOfMemoryError: CUDA out of memory',
        '',
        'S3:      s3://bucket/training-runs/run-42/',
        `Console: ${alert().consoleUrl}`,
        '',
      ].join('\n'),
    );
  });

  it('shows the learning rate progress.json reported, as the loss is', () => {
    const { body } = snsMessage(alert({ learningRate: 0.000299999 }));
    expect(body).toContain('Loss:           2.346\nLearning rate:  0.0003\n');
  });

  it('omits absent facts and sections', () => {
    const { body } = snsMessage(
      alert({ details: [], lastLogLine: '  ', loss: undefined, jobName: undefined }),
    );
    expect(body).not.toMatch(/Details:|Last log line:|Loss:|Job:|undefined/);
  });

  it('keeps the body within what SNS accepts', () => {
    const { body } = snsMessage(alert({ reason: '🔥'.repeat(200_000), details: ['d'.repeat(100_000)] }));
    expect(Buffer.byteLength(body, 'utf8')).toBeLessThan(256 * 1024);
    expect(body.endsWith('…')).toBe(true);
  });

  it('spells typography in ASCII', () => {
    expect(toAscii('a — b · c… “d”\te')).toBe('a - b - c... "d" e');
  });
});

describe('diagnosis follow-ups', () => {
  it('mark their headline and subject so they do not read as a second transition', async () => {
    const { slackMessage } = await import('../../../lambdas/core/render/slack.js');
    const { snsMessage } = await import('../../../lambdas/core/render/text.js');
    const base = {
      id: 'r:3:remediation',
      kind: 'remediation' as const,
      runId: 'r',
      state: 'FAILED' as const,
      reason: 'not restarting: oom is excluded',
      action: 'Reduce batch size',
      severity: 'critical' as const,
      at: 0,
      attempt: 1,
      s3Uri: 's3://b/p/r/',
      consoleUrl: 'https://s3.console.aws.amazon.com/s3/buckets/b',
    };
    expect(JSON.stringify(slackMessage(base).blocks[0])).toContain('r — FAILED (diagnosis)');
    expect(snsMessage(base).subject).toBe('[trainwatch] r diagnosed FAILED: not restarting: oom is excluded');
    expect(JSON.stringify(slackMessage({ ...base, state: 'RESTARTING' }).blocks[0])).not.toContain(
      'diagnosis',
    );
  });
});
