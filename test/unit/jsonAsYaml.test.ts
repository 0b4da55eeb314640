import { describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../lambdas/core/base/errors.js';

// As in the Lambda bundles (lib/functions.ts aliases `yaml` to the JSON reader).
vi.mock('yaml', async () => await import('../../lambdas/adapters/loaders/jsonAsYaml.js'));
const { loadPolicy } = await import('../../lambdas/core/remediation/index.js');
const { loadProfile } = await import('../../lambdas/core/classify/index.js');

describe('the JSON reader the Lambda bundles use for yaml', () => {
  it('reads a policy and a profile as the stack writes them (JSON)', () => {
    const policy = { extends: 'transient', max_restarts: 1, backoff: { initial_seconds: 5 } };
    expect(loadPolicy(JSON.stringify(policy))).toMatchObject({
      name: 'transient-custom',
      max_restarts: 1,
      backoff: { initial_seconds: 5, factor: 2 },
    });
    const profile = loadProfile(JSON.stringify({ name: 'mine', extends: ['basic'], signals: [] }));
    expect(profile.name).toBe('mine');
  });

  it('refuses YAML with a ConfigError that says where YAML is read', () => {
    const err = (() => {
      try {
        loadPolicy('extends: transient\nmax_restarts: 1\n');
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.message).toMatch(/read as JSON: the stack writes it so/);
  });
});
