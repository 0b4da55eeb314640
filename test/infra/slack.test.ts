import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { resolveProps } from '../../lib/resolve.js';
import { SLACK_ATTRIBUTES, SLACK_LEADING_KEYS } from '../../lib/slackEndpoint.js';
import { actionsOf, roleStatements, synthStack } from './synth.js';

const SLACK = {
  botTokenParameter: '/trainwatch/slack-bot-token',
  signingSecretParameter: '/trainwatch/slack-signing-secret',
  channel: 'C0123ABCD',
};
const app = synthStack({ alerts: { slackWebhookParameter: '' }, slack: SLACK });
const withRestart = synthStack({ slack: { ...SLACK, restartBy: ['U0123ABCD'] } });
const plain = synthStack();

const byId = (role: string, t = app.template) =>
  Object.fromEntries(roleStatements(t, role).map((s) => [s.Sid as string, s]));

describe('the Slack app in the stack', () => {
  it('deploys the endpoint only with a signing secret: a function URL that Slack calls unsigned by AWS', () => {
    app.template.resourceCountIs('AWS::Lambda::Url', 1);
    app.template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE' });
    plain.template.resourceCountIs('AWS::Lambda::Url', 0);
    app.template.hasOutput('SlackEndpointUrl', {
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^MonitorSlackFunction'), 'FunctionUrl'] },
    });
    app.template.hasOutput('SlackBotTokenParameter', { Value: SLACK.botTokenParameter });
    app.template.hasOutput('SlackSigningSecretParameter', { Value: SLACK.signingSecretParameter });
    app.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          TRAINWATCH_SLACK_BOT_TOKEN_PARAM: SLACK.botTokenParameter,
          TRAINWATCH_SLACK_SIGNING_SECRET_PARAM: SLACK.signingSecretParameter,
          TRAINWATCH_SLACK_CHANNEL: SLACK.channel,
          TRAINWATCH_SLACK_ACK_BY: '*',
          TRAINWATCH_SLACK_RESTART_BY: 'none',
        }),
      },
    });
  });

  it('lets anyone call the URL (Slack), through the URL only: both permissions a function URL needs', () => {
    app.template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunctionUrl',
      FunctionUrlAuthType: 'NONE',
      Principal: '*',
    });
    app.template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      InvokedViaFunctionUrl: true,
      Principal: '*',
    });
  });

  it("gives the endpoint's role only what it uses: runs, silences and its claims, the two parameters; no SSM commands, no S3", () => {
    const s = byId('MonitorSlackFunctionRole');
    expect(Object.keys(s).sort()).toEqual([
      'ReadRunsAndSilences',
      'ReadSlackSecrets',
      'WriteAcksSilencesAndClaims',
      'WriteOwnLogs',
    ]);
    expect(actionsOf(s.ReadRunsAndSilences!)).toEqual(['dynamodb:BatchGetItem', 'dynamodb:Query']);
    expect(s.ReadRunsAndSilences!.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': SLACK_LEADING_KEYS },
    });
    expect(actionsOf(s.WriteAcksSilencesAndClaims!)).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(s.WriteAcksSilencesAndClaims!.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': SLACK_LEADING_KEYS },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': SLACK_ATTRIBUTES },
    });
    // A run's state, locks and remediation are not among the attributes it may write.
    expect(SLACK_ATTRIBUTES).not.toContain('locks');
    expect(SLACK_ATTRIBUTES).not.toContain('remediation');
    expect(s.ReadSlackSecrets!.Action).toBe('ssm:GetParameter');
    const params = JSON.stringify(s.ReadSlackSecrets!.Resource);
    expect(params).toContain(':parameter/trainwatch/slack-bot-token');
    expect(params).toContain(':parameter/trainwatch/slack-signing-secret');
    expect(params).not.toContain('*');
    const all = JSON.stringify(roleStatements(app.template, 'MonitorSlackFunctionRole'));
    expect(all).not.toMatch(/ssm:SendCommand|s3:|dynamodb:DeleteItem|dynamodb:Scan|sns:|"\*"/);
  });

  it('lets the endpoint put restart requests, and nothing else on the bus, only where Restart now is on', () => {
    const s = byId('MonitorSlackFunctionRole', withRestart.template);
    expect(s.RequestRestarts).toMatchObject({
      Action: 'events:PutEvents',
      Condition: {
        StringEquals: {
          'events:source': 'trainwatch',
          'events:detail-type': 'Training Run Restart Requested',
        },
      },
    });
    expect(JSON.stringify(s.RequestRestarts!.Resource)).toContain('MonitorEventBus');
    expect(byId('MonitorSlackFunctionRole').RequestRestarts).toBeUndefined();
  });

  it('routes restart requests to the remediation function, which alone runs SSM commands', () => {
    // `trainwatch restart` needs no Slack app: the rule is there whenever remediation is.
    plain.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { 'detail-type': ['Training Run Restart Requested'] },
    });
    app.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['trainwatch'], 'detail-type': ['Training Run Restart Requested'] },
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^MonitorRemediateFunction'), 'Arn'] },
        }),
      ],
    });
  });

  it('lets the functions that alert read the bot token, that parameter only', () => {
    for (const role of ['MonitorSweep', 'MonitorSentinel', 'MonitorRemediate']) {
      const s = byId(role).ReadSlackBotToken!;
      expect(s.Action).toBe('ssm:GetParameter');
      expect(JSON.stringify(s.Resource)).toContain(':parameter/trainwatch/slack-bot-token');
      expect(JSON.stringify(s.Resource)).not.toContain('*');
    }
    expect(byId('MonitorSweep', plain.template).ReadSlackBotToken).toBeUndefined();
  });

  it('rejects an app without a channel, and a signing secret without a bot token', () => {
    expect(() => resolveProps({ slack: { botTokenParameterName: '/x' } })).toThrow(
      /slack\.channel is required/,
    );
    expect(() => resolveProps({ slack: { signingSecretParameterName: '/y' } })).toThrow(
      /slack\.signingSecretParameterName needs slack\.botTokenParameterName/,
    );
    expect(() => synthStack({ slack: { ...SLACK, channel: '#general' } })).toThrow(
      /slack\.channel: is not a Slack channel id/,
    );
    expect(() => synthStack({ slack: { ...SLACK, ackBy: ['maria'] } })).toThrow(/is not a Slack user/);
    // The app alone is an alert channel: no webhook or email needed.
    expect(() => synthStack({ alerts: { slackWebhookParameter: '' }, slack: SLACK })).not.toThrow();
  });
});
