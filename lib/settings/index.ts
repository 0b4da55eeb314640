export {
  fileFields,
  fileGroups,
  fileKey,
  type PropsOf,
  propsFromFile,
  type ResolvedOf,
  resolveSettings,
  settingOfEnv,
  settingsEnvironment,
  USER_SETTINGS,
} from './derive.js';
export type { EksCluster } from './eksKinds.js';
export {
  CODECS,
  envDuration,
  type Kind,
  type KindTypes,
  type ManagedTag,
  type RestartCommand,
} from './kinds.js';
