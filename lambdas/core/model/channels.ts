/** What the rest of the code needs to know of an alert channel. */
export interface ChannelTraits {
  /** How texts name it ("Slack, SNS and PagerDuty are held"). */
  readonly label: string;
  /** People read it: a silence (or `maintenance`) holds it. */
  readonly people: boolean;
  /** A grouped alert replaces its per-run alerts in one sweep. */
  readonly grouped: boolean;
}

/**
 * Every alert channel, once (a notifier's `channel` is one of these names). The route lists, the texts that
 * say what a silence holds and the CLI's outbox entries derive from it; test/unit/model/channels.test.ts fails
 * when a notifier names a channel that is not here.
 */
export const CHANNELS = {
  slack: { label: 'Slack', people: true, grouped: true },
  sns: { label: 'SNS', people: true, grouped: true },
  pagerduty: { label: 'PagerDuty', people: true, grouped: false },
  events: { label: 'EventBridge', people: false, grouped: false },
} as const satisfies Readonly<Record<string, ChannelTraits>>;

export type ChannelName = keyof typeof CHANNELS;

/** Every channel name: an entry written outside a sweep (the CLI) lists them all; missing ones drop out. */
export const ALL_CHANNELS: readonly string[] = Object.keys(CHANNELS);
const where = (f: (t: ChannelTraits) => boolean) => ALL_CHANNELS.filter((c) => f(CHANNELS[c as ChannelName]));
/** Channels that reach people: a silence holds them. EventBridge (`events`) is never held. */
export const PEOPLE_CHANNELS: readonly string[] = where((t) => t.people);
/** Channels a grouped alert replaces; PagerDuty keeps one incident per run attempt. */
export const GROUPED_CHANNELS: readonly string[] = where((t) => t.grouped);

const held = PEOPLE_CHANNELS.map((c) => CHANNELS[c as ChannelName].label);
/** "Slack, SNS and PagerDuty": the channels a silence holds, as texts say it. */
export const HELD_CHANNELS_TEXT =
  held.length > 1 ? `${held.slice(0, -1).join(', ')} and ${held.at(-1)}` : (held[0] ?? '');
