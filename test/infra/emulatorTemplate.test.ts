import { describe, expect, it } from 'vitest';
import { deployedConfig, emulatorTemplate } from '../../local/deployed.js';
import { synthStack } from './synth.js';

type Template = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };

// The deployment test (test/deploy) deploys this variant: it may take out only what MiniStack cannot host.
describe('the template variant deployed into MiniStack', () => {
  const { template } = synthStack(deployedConfig() as Parameters<typeof synthStack>[0]);
  const original = template.toJSON() as Template;
  const hosts = { slackApiUrl: 'http://127.0.0.1:9/api/', pagerDutyUrl: 'http://127.0.0.1:9/v2/enqueue' };
  const { template: variant, removed } = emulatorTemplate(structuredClone(original), hosts) as {
    template: Template;
    removed: Record<string, string>;
  };

  it('removes the two SSM documents and no other resource', () => {
    const gone = Object.keys(original.Resources).filter((id) => !(id in variant.Resources));
    expect(gone.sort()).toEqual(Object.keys(removed).sort());
    expect(gone.map((id) => original.Resources[id]!.Type)).toEqual([
      'AWS::SSM::Document',
      'AWS::SSM::Document',
    ]);
  });

  it('leaves no reference to them, and changes nothing else but where Slack and PagerDuty are', () => {
    const text = JSON.stringify(variant);
    for (const id of Object.keys(removed)) expect(text).not.toContain(`"${id}"`);
    // Put the documents' names and the two URLs back: the rest is the synthesized template, unchanged.
    let restored = text;
    for (const [id, name] of Object.entries(removed))
      restored = restored.replaceAll(`"${name}"`, JSON.stringify({ Ref: id }));
    const back = JSON.parse(restored) as Template;
    for (const r of Object.values(back.Resources)) {
      const vars = (r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables;
      if (r.Type !== 'AWS::Lambda::Function' || !vars) continue;
      expect(vars).toMatchObject({
        TRAINWATCH_SLACK_API_URL: hosts.slackApiUrl,
        TRAINWATCH_PAGERDUTY_URL: hosts.pagerDutyUrl,
      });
      delete vars.TRAINWATCH_SLACK_API_URL;
      delete vars.TRAINWATCH_PAGERDUTY_URL;
    }
    const withoutDocuments = structuredClone(original);
    for (const id of Object.keys(removed)) delete withoutDocuments.Resources[id];
    expect(back).toEqual(withoutDocuments);
  });
});
