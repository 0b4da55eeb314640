export type { Base, Env, Setting } from './define.js';
export {
  ALL_SETTINGS,
  entries,
  getPath,
  loadSettings,
  type SettingEntry,
  type SettingTree,
  type SettingValues,
  setPath,
} from './load.js';
export { SETTINGS, WIRING } from './registry.js';
