import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lambdas/config.js';
import { ALL_SETTINGS, getPath, loadSettings } from '../../lambdas/settings/index.js';
import { TrainwatchConfigSchema } from '../../lib/config.js';
import { PROJECT_ROOT } from '../../lib/functions.js';
import { resolveProps } from '../../lib/resolve.js';
import {
  fileGroups,
  fileKey,
  propsFromFile,
  settingsEnvironment,
  USER_SETTINGS,
} from '../../lib/settings/index.js';
import { runtimeTable, TABLE_END, TABLE_START, withRuntimeTable } from '../../lib/settings/readme.js';
import { monitorProps } from '../../lib/stack.js';
import { testApp } from './synth.js';

/** The configuration reference: the runtime table and a row for every setting (moved out of the README). */
const REFERENCE = readFileSync(join(PROJECT_ROOT, 'docs', 'CONFIGURATION.md'), 'utf8');
const WIRED = { TRAINWATCH_BUCKET: 'b', TRAINWATCH_TABLE: 't' };

describe('the settings registry', () => {
  it('gives every setting its own environment variable', () => {
    const names = ALL_SETTINGS.map((e) => e.setting.env);
    expect(new Set(names).size).toBe(names.length);
    for (const e of USER_SETTINGS) expect(e.setting.env).toMatch(/^TRAINWATCH_[A-Z_]+$/);
  });

  it('places every config-file key in a group the config schema has', () => {
    const shape = TrainwatchConfigSchema.shape as Record<string, unknown>;
    // Groups nest (`remediation.eks`): each is an object of the parsed default configuration.
    const parsed = TrainwatchConfigSchema.parse({});
    for (const group of fileGroups().filter(Boolean)) {
      expect(Object.keys(shape)).toContain(group.split('.')[0]);
      expect(getPath(parsed, group), group).toBeTypeOf('object');
    }
  });

  it('the stack writes, for each default, what the runtime assumes when the variable is unset', () => {
    // The whole path: config-file default → props → resolved → environment → the runtime loader.
    const config = TrainwatchConfigSchema.parse({});
    const resolved = resolveProps(monitorProps(testApp(), config));
    const env: Record<string, string> = {
      ...WIRED,
      ...settingsEnvironment(resolved, 'common'),
      ...settingsEnvironment(resolved, 'remediation'),
    };
    const fromStack = loadSettings(env);
    const runtimeDefaults = loadSettings(WIRED);
    for (const { path, setting } of USER_SETTINGS) {
      const at = setting.runtime ?? path;
      if (setting.stackDefault !== undefined) {
        // The stack turns it on (the Slack parameter); unset at runtime means off.
        expect(getPath(runtimeDefaults, at), path).toBeUndefined();
        expect(env[setting.env]).toBe(setting.stackDefault);
      } else expect(getPath(fromStack, at), path).toEqual(getPath(runtimeDefaults, at));
    }
  });

  it('carries a value set in the config file through to the runtime', () => {
    const config = TrainwatchConfigSchema.parse({
      thresholds: { remindEvery: '2h', phaseStaleAfter: { eval: '45m' } },
      retention: { historyDays: 30 },
      remediation: { managedTag: 'team:gpu=yes', restartCommands: { '*': '/opt/resume.sh' } },
      profile: 'nccl',
    });
    expect(propsFromFile(config)).toHaveProperty('thresholds.remindEvery');
    const resolved = resolveProps(monitorProps(testApp(), config));
    const c = loadConfig({
      ...WIRED,
      ...settingsEnvironment(resolved, 'common'),
      ...settingsEnvironment(resolved, 'remediation'),
    });
    expect(c.remindEveryMs).toBe(2 * 3_600_000);
    expect(c.thresholds.phaseStaleAfterMs).toEqual({ eval: 45 * 60_000 });
    expect(c.historyTtlDays).toBe(30);
    expect(c.remediation.managedTag).toEqual({ key: 'team:gpu', value: 'yes' });
    expect(c.remediation.commands).toEqual({ '*': { command: '/opt/resume.sh' } });
    expect(c.remediation.profile).toBe('nccl');
  });

  it('carries the EKS clusters from the config file to the runtime, the default group left out of the environment', () => {
    const ca = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n').toString(
      'base64',
    );
    const clusters = [
      {
        name: 'ml-prod',
        endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com',
        certificateAuthority: ca,
        namespaces: ['training'],
      },
      {
        name: 'ml-dev',
        endpoint: 'https://10.0.0.1',
        certificateAuthority: ca,
        namespaces: ['dev'],
        group: 'ml',
      },
    ];
    const config = TrainwatchConfigSchema.parse({
      remediation: { eks: { clusters, gangRestart: 'suspend' } },
    });
    const resolved = resolveProps(monitorProps(testApp(), config));
    const env = settingsEnvironment(resolved, 'remediation');
    expect(JSON.parse(env.TRAINWATCH_EKS_CLUSTERS!)).toEqual(clusters);
    expect(env.TRAINWATCH_EKS_GANG_RESTART).toBe('suspend');
    expect(loadConfig({ ...WIRED, ...env }).remediation.eks).toEqual({
      clusters: [{ ...clusters[0], group: 'trainwatch:remediation' }, clusters[1]],
      gangRestart: 'suspend',
    });
  });

  it('sends remediation settings to the remediation function only', () => {
    const resolved = resolveProps({});
    expect(Object.keys(settingsEnvironment(resolved, 'common'))).not.toContain('TRAINWATCH_RESTART_POLICY');
    expect(Object.keys(settingsEnvironment(resolved, 'remediation')).sort()).toEqual([
      'TRAINWATCH_EKS_GANG_RESTART',
      'TRAINWATCH_MANAGED_TAG',
      'TRAINWATCH_RESTART_COMMANDS',
      'TRAINWATCH_RESTART_POLICY',
      'TRAINWATCH_SSM_OUTPUT_PREFIX',
    ]);
  });
});

describe('docs/CONFIGURATION.md', () => {
  it('"Runtime configuration": the table is the registry\'s (npm run docs:settings rewrites it)', () => {
    const start = REFERENCE.indexOf(TABLE_START);
    const generated = REFERENCE.slice(start, REFERENCE.indexOf(TABLE_END))
      .split('\n')
      .slice(2, -2)
      .join('\n');
    expect(generated).toBe(runtimeTable());
    expect(withRuntimeTable(REFERENCE)).toBe(REFERENCE);
  });

  it('"Configuration": a row for every setting, with its default', () => {
    const rows = new Map(
      REFERENCE.split('\n')
        .filter((l) => l.startsWith('| `'))
        .map((l) => l.split('|').map((c) => c.trim()))
        .map((cells) => [cells[1]!, cells[2]!]),
    );
    for (const e of USER_SETTINGS) {
      const cell = rows.get(`\`${fileKey(e)}\``);
      expect(cell, fileKey(e)).toBeDefined();
      const def = e.setting.stackDefault ?? e.setting.default;
      if (typeof def === 'string' || typeof def === 'number') expect(cell, fileKey(e)).toContain(String(def));
    }
  });
});
