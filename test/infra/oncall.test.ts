import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config.js';
import { ONCALL_ATTRIBUTES } from '../../lib/onCallPolicy.js';
import { roleStatements, synthStack } from './synth.js';

type Json = Record<string, unknown>;
const withPagerDuty = synthStack({ pagerduty: { routingKeyParameter: '/ml/pagerduty-key' }, groupMin: 5 });
const plain = synthStack();

const sids = (role: string, t = withPagerDuty.template) => roleStatements(t, role).map((s) => s.Sid);
const pdStatement = (role: string) =>
  roleStatements(withPagerDuty.template, role).find((s) => s.Sid === 'ReadPagerDutyRoutingKey');

describe('on-call lifecycle in the stack', () => {
  it('lets the sweep and the sentinel read the PagerDuty routing key parameter, that one only', () => {
    for (const role of ['MonitorSweep', 'MonitorSentinel']) {
      const s = pdStatement(role)!;
      expect(s.Action).toBe('ssm:GetParameter');
      expect(JSON.stringify(s.Resource)).toContain(':parameter/ml/pagerduty-key');
      expect(JSON.stringify(s.Resource)).not.toContain('*');
    }
    expect(sids('MonitorRemediate')).not.toContain('ReadPagerDutyRoutingKey');
    expect(sids('MonitorSweep', plain.template)).not.toContain('ReadPagerDutyRoutingKey');
  });

  it('passes the parameter name and the group size to the functions', () => {
    withPagerDuty.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          TRAINWATCH_PAGERDUTY_ROUTING_KEY_PARAM: '/ml/pagerduty-key',
          TRAINWATCH_GROUP_MIN: '5',
        }),
      },
    });
    const fns = Object.values(plain.template.findResources('AWS::Lambda::Function')) as Json[];
    const vars = fns.map((f) => JSON.stringify(f));
    expect(vars.some((v) => v.includes('TRAINWATCH_PAGERDUTY_ROUTING_KEY_PARAM'))).toBe(false);
    expect(vars.some((v) => v.includes('"TRAINWATCH_GROUP_MIN":"3"'))).toBe(true);
  });

  it('offers an on-call policy limited to run and silence items and the attributes acks and silences write', () => {
    const policies = plain.template.findResources('AWS::IAM::ManagedPolicy', {
      Properties: { Description: Match.stringLikeRegexp('on-call') },
    });
    const [policy] = Object.values(policies) as { Properties: { PolicyDocument: { Statement: Json[] } } }[];
    const byId = Object.fromEntries(policy!.Properties.PolicyDocument.Statement.map((s) => [s.Sid, s]));
    expect(byId.WriteAcksAndSilences).toMatchObject({
      Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
      Condition: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LIVE#*', 'RUN#*', 'ENDED#*', 'SILENCE'] },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': ONCALL_ATTRIBUTES },
      },
    });
    expect(byId.ReadRunsAndSilences!.Action).toEqual(['dynamodb:BatchGetItem', 'dynamodb:Query']);
    // status reads the live partitions and the ended-runs log: no Scan of the whole table any more.
    expect(JSON.stringify(policy)).not.toMatch(/DeleteItem|BatchWrite|Scan|"dynamodb:\*"/);
    plain.template.hasOutput('OnCallPolicyArn', {});
  });

  it('rejects a bad parameter name and a negative group size', () => {
    expect(() => parseConfig({ pagerduty: { routingKeyParameter: 'has space' } })).toThrow(
      /pagerduty.routingKeyParameter: is not an SSM parameter name/,
    );
    expect(() => parseConfig({ groupMin: -1 })).toThrow(/groupMin/);
  });
});
