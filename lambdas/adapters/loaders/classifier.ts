// The classifier's rules (~80 KB of signals) load on the first failure a function classifies, not at cold
// start: a sweep of healthy runs never needs them, and remediation's bundle stays under its 250 KB. In a bundle they are a file of their own beside the
// handler (`classify.mjs`, built by lib/functions.ts, which defines the name below); elsewhere (the CLI, the
// local mode, the tests) the name is undefined and the module itself is imported.

import type { Profile } from '../../core/classify/index.js';
import { PROFILE_NAMES } from '../../core/classify/names.js';
import type { Classifier } from '../../core/pipeline/index.js';
import type { DetailedClassifier } from '../../core/remediation/index.js';
import { once } from '../aws/lazy.js';

type ClassifyModule = typeof import('../../core/classify/index.js');

/** The file the bundling writes beside each handler's `index.mjs`. */
export const CLASSIFY_CHUNK = 'classify.mjs';

declare const __TRAINWATCH_CLASSIFY_CHUNK__: string | undefined;

/** The rules' module: its own file in a Lambda bundle (lib/functions.ts defines its name), the source elsewhere. */
const loadRules = once(
  (): Promise<ClassifyModule> =>
    typeof __TRAINWATCH_CLASSIFY_CHUNK__ === 'string'
      ? import(new URL(__TRAINWATCH_CLASSIFY_CHUNK__, import.meta.url).href)
      : import('../../core/classify/index.js'),
);

/** The configured profile: a built-in name as is, a custom profile's JSON/YAML text loaded. */
export function configuredProfile(setting: string, load: (text: string) => Profile): Profile | string {
  return PROFILE_NAMES.includes(setting) ? setting : load(setting);
}

/**
 * Remediation's classifier: `classifyDetailed` from the rules' file, loaded on the first failure it handles.
 * `setting` (the configured default: a name, or a custom profile's text) is loaded with them; core passes it
 * as the profile when the run names none.
 */
export function lazyDetailedClassifier(setting: string): DetailedClassifier {
  const rules = once(async () => {
    const m = await loadRules();
    return { classifyDetailed: m.classifyDetailed, fallback: configuredProfile(setting, m.loadProfile) };
  });
  return async (text, profile) => {
    const { classifyDetailed, fallback } = await rules();
    return classifyDetailed(text, profile === setting ? fallback : profile);
  };
}

/**
 * Classifies with the run's profile, else the configured default (a name, or a custom profile's text);
 * an unknown run profile falls back too.
 */
export function lazyClassifier(setting: string): Classifier {
  const rules = once(async () => {
    const m = await loadRules();
    return { classify: m.classify, fallback: configuredProfile(setting, m.loadProfile) };
  });
  return async (text, profile) => {
    const { classify, fallback } = await rules();
    try {
      return classify(text, profile ?? fallback);
    } catch {
      return classify(text, fallback);
    }
  };
}
