export { ALL_CHANNELS, GROUPED_CHANNELS, PEOPLE_CHANNELS } from '../model/channels.js';
export type { Acknowledgement } from '../model/slices/oncall.js';
export { ackLine, acknowledge, ackProblem, currentAck } from './ack.js';
export { type FinishDeps, type FinishReport, finishGroups, finishSilences } from './finish.js';
export { groupAlert, groupKey, MAX_GROUP, partition, reasonClass, runList } from './group.js';
export { dedupKey, type PagerDutyEvent, pagerDutyEvents, pagerDutySeverity } from './pagerDuty.js';
export type { GroupMember, GroupStore, SilenceStore } from './ports.js';
export { type DeferredAlert, holdForGroup, type Oncall, remindersHeld, routeTransition } from './route.js';
export {
  covers,
  describeScope,
  heldBy,
  isActive,
  needsSummary,
  resolvedFor,
  type Silence,
  type SilenceScope,
  stillUnhealthy,
} from './silence.js';
export { summaryAlert } from './summary.js';
