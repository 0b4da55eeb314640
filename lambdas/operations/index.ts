export {
  acknowledgeRun,
  addSilence,
  type Expected,
  MAX_SILENCE_MS,
  type OnCallDeps,
  requestRestart,
} from './onCall.js';
