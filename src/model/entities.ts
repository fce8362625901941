/**
 * The configuration entities the Admin API writes, as stored (JSON, one per id), and what each
 * kind keeps unique.
 */
/** The kinds of configuration entity, each stored as one hash in Redis (src/config/store.ts). */
export type ConfigKind =
  | 'metrics' | 'attributes' | 'tenants' | 'apikeys' | 'achievements' | 'settings'
  | 'points' | 'ptriggers' | 'plevels' | 'pboosts' | 'leaderboards' | 'nsettings' | 'ntemplates' | 'webhooks';

export interface Metric {
  id: string;
  key: string;
  name: string;
  unitType: 'number' | 'currency';
  units: string;
  status: 'active' | 'archived';
  /** Per user and period, only the first `max` of the values sent count (src/domain/limits.ts); absent or null: none. */
  limits?: MetricLimits | null;
  created: string;
  updated: string;
}

/** A period of the user's clock that limits count in. */
export type LimitPeriod = 'hour' | 'day' | 'week';

/** A metric's limit: per user and period, only the first `max` of the values sent count. */
export interface MetricLimits {
  max: number;
  period: LimitPeriod;
}

/** A points trigger's cap: at most `count` awards per user and period. */
export interface MaxAwards {
  count: number;
  period: LimitPeriod;
}

export interface Attribute {
  id: string;
  key: string;
  name: string;
  type: 'user' | 'event';
  created: string;
  updated: string;
}

export interface Tenant {
  id: string;
  customerId: string;
  name: string;
  status: 'active' | 'archived';
  created: string;
  updated: string;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  kind: 'admin' | 'application';
  tenantId: string | null;
  /** The public part of the key, shown in listings. */
  prefix: string;
  /** sha256 of the whole key, hex. */
  hash: string;
  created: string;
}

export interface AttributeFilter {
  attributeId: string;
  attributeValue: string;
}

export type AchievementTrigger = 'metric' | 'streak' | 'api' | 'achievement' | 'anniversary';
export type AchievementStatus = 'active' | 'inactive' | 'locked' | 'archived';

export interface Achievement {
  id: string;
  key: string;
  name: string;
  trigger: AchievementTrigger;
  description: string | null;
  badgeUrl: string | null;
  metricId: string | null;
  metricValue: number | null;
  streakLength: number | null;
  /**
   * `anniversary`: the years since the user's creation, counted on the user's calendar
   * (src/domain/anniversaries.ts). Absent on achievements stored before the trigger existed.
   */
  anniversaryYears?: number | null;
  /** Prerequisites of an `achievement` (composite) trigger. */
  achievementIds: string[];
  userAttributes: AttributeFilter[];
  /** Only for `metric`: only events with all these attribute values count. */
  eventAttributes: AttributeFilter[];
  status: AchievementStatus;
  created: string;
  updated: string;
  /**
   * When it last became active, or changed what completes it while active (its `anniversaryYears`,
   * its user filters): an anniversary that came before is a backfill's, silent
   * (src/engine/achievements/anniversaries.ts). Absent on achievements stored before it was kept.
   */
  activated?: string;
}

export interface StreakSettings {
  /** Always 'streaks': the one settings entity of this kind. */
  id: 'streaks';
  frequency: 'daily' | 'weekly' | 'monthly';
  evaluation: 'all' | 'any';
  metrics: { metricId: string; threshold: number }[];
  freezes: { initial: number; max: number; autoEarnInterval: number; autoEarnAmount: number } | null;
  /**
   * Whether users may set streak preferences of their own (Admin API 1.26.0's
   * `customizationEnabled`); absent: they may.
   */
  customizationEnabled?: boolean;
  /**
   * Weekdays (0 Sunday .. 6 Saturday, as Date.getDay) on which a daily streak neither extends nor
   * breaks (Admin API 1.26.0's `daysOff`); absent or empty: none. Daily rules only.
   */
  daysOff?: number[];
  created: string;
  updated: string;
}

/** A points system (trophy-admin 1.21.1 AdminPointsSystem). */
export interface PointsSystem {
  id: string;
  key: string;
  name: string;
  description: string | null;
  badgeUrl: string | null;
  /** No total ever exceeds it; null: no cap. */
  maxPoints: number | null;
  status: 'active' | 'archived';
  /** When it was archived: [from, to] (ISO), to null while it is (its time triggers pay for none of it). */
  offPeriods?: OffPeriod[];
  created: string;
  updated: string;
}

/** A stretch of time a points system was archived or a trigger inactive: from, and to (null: still). */
export type OffPeriod = [from: string, to: string | null];

/** The periods with one opened or closed by a status change at `now`: `off` says whether it is off from then on. */
export function offPeriodsAfter(periods: OffPeriod[] | undefined, wasOff: boolean, off: boolean, now: string): OffPeriod[] | undefined {
  if (wasOff === off) return periods;
  if (off) return [...(periods ?? []), [now, null]];
  return (periods ?? []).map(([from, to]) => [from, to ?? now]);
}

export type PointsTriggerType = 'metric' | 'achievement' | 'streak' | 'time' | 'user_creation';

/** A trigger of a points system (AdminPointsTrigger). */
export interface PointsTrigger {
  id: string;
  systemId: string;
  type: PointsTriggerType;
  /** Awarded when it fires; negative consumes. Never 0. */
  points: number;
  status: 'active' | 'inactive';
  userAttributes: AttributeFilter[];
  /** metric: every `metricThreshold` units the user's total (or the filtered events' sum) passes. */
  metricId: string | null;
  metricThreshold: number | null;
  eventAttributes: AttributeFilter[];
  /** achievement: when it completes. */
  achievementId: string | null;
  /** streak: when the streak reaches this length and each multiple of it. */
  streakLength: number | null;
  /** time: every `timeInterval` hours or days since the user was created. */
  timeUnit: 'hours' | 'days' | null;
  timeInterval: number | null;
  /** metric with negative points: refuse an event that would take the total below 0. */
  blockIfOutOfPoints: boolean;
  /** metric, streak: no award for a user within this many seconds of their last one from it (absent or null: none). */
  cooldownSeconds?: number | null;
  /** metric, streak: at most this many awards per user and period (absent or null: no cap). */
  maxAwards?: MaxAwards | null;
  /** When it was inactive (a time trigger pays for none of it); since a type change, only as that type. */
  offPeriods?: OffPeriod[];
  created: string;
  updated: string;
}

/** A level of a points system (AdminPointsLevel): reached at `points`. */
export interface PointsLevel {
  id: string;
  systemId: string;
  key: string;
  /** `<systemId>:<key>`: keys are unique within a system. */
  scopedKey: string;
  name: string;
  description: string | null;
  badgeUrl: string | null;
  points: number;
  created: string;
  updated: string;
}

/** A boost of a points system (AdminPointsBoost): a multiplier over the days start..end. */
export interface PointsBoost {
  id: string;
  systemId: string;
  name: string;
  /** YYYY-MM-DD, in the user's zone. */
  start: string;
  end: string | null;
  multiplier: number;
  rounding: 'down' | 'up' | 'nearest';
  /** A boost for one user, or (null) for everyone matching `userAttributes`. */
  userId: string | null;
  /**
   * The tenant (storage id) of a boost's one user: the tenant its creating request acted for.
   * Absent for a boost for everyone, and for one stored before boosts had it (the default tenant's).
   */
  tenant?: string;
  userAttributes: AttributeFilter[];
  created: string;
  updated: string;
}

export type LeaderboardStatus = 'inactive' | 'active' | 'scheduled' | 'finished';

/** A league's tier: `promote` and `demote` users of each cohort move at the end of a run. */
export interface LeagueTier {
  key: string;
  name: string;
  promote: number;
  demote: number;
}

/** A league (docs/api.md, "Leagues"): tiers lowest first, and the users a cohort holds at most. */
export interface League {
  tiers: LeagueTier[];
  cohortSize: number;
}

/**
 * A leaderboard (trophy-admin 1.21.1 AdminLeaderboard). `status` is what the admin set; the
 * status users see follows the clock (src/domain/leaderboards/runs.ts leaderboardStatus).
 */
export interface Leaderboard {
  id: string;
  key: string;
  name: string;
  description: string | null;
  status: LeaderboardStatus;
  rankBy: 'metric' | 'points' | 'streak';
  metricId: string | null;
  pointsSystemId: string | null;
  /** 1 to 1000, or null: uncapped, every participant ranked (src/domain/leaderboards/cap.ts). */
  maxParticipants: number | null;
  /**
   * How many rankings each run (and group) is spread over, 2 to 64, on an uncapped board only
   * (src/domain/leaderboards/shards.ts); absent: one.
   */
  shards?: number;
  /**
   * 'spread': each shard's hash tag is chosen so its slot falls in the n-th of `shards` equal parts
   * of the slot space (src/redis/shard-slots.ts), set whenever `shards` is set through the Admin
   * API; absent on a sharded board: shard n past the first is tagged `:s<n>` (slots as they fall),
   * kept as its keys are named.
   */
  shardSlots?: 'spread';
  /** YYYY-MM-DD: the first day (in each user's zone). */
  start: string;
  /** YYYY-MM-DD: the last day, or null for none. */
  end: string | null;
  /** HH:mm windows of the day (stored and shown). */
  startTime: string | null;
  endTime: string | null;
  /** User attribute ids: users are ranked in separate groups by their values. */
  breakdownAttributes: string[];
  /** A repeating board starts a new run every `runInterval` units from its start; null: perpetual. */
  runUnit: 'day' | 'month' | 'year' | null;
  runInterval: number | null;
  /** A league on a repeating board: its users compete in cohorts by tier (src/domain/leaderboards/league.ts). Absent: none. */
  league?: League | null;
  /**
   * When an admin set it `finished` (ISO-8601): its last run is the one of that UTC day, final
   * from then on. Absent on boards stored before it existed (then `updated` stands in).
   */
  finishedAt?: string | null;
  /**
   * Users have seen it active or finished: what its rankings are kept by stays fixed, also if it is
   * made inactive again (src/routes/admin/leaderboards.ts, checkRanked). Absent: not yet.
   */
  shown?: true;
  created: string;
  updated: string;
}

export const NOTIFICATION_TYPES = ['achievement_completed', 'recap', 'reactivation', 'streak_reminder'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];
export const CHANNELS = ['email', 'push'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The notification settings (docs/notifications.md): one entity, id 'notifications'. */
export interface NotificationSettings {
  id: 'notifications';
  /** The share of new users put in the control group, 0..1. */
  controlRatio: number;
  /**
   * Every control ratio set, with when (ISO-8601), oldest first: a user's group is the one the ratio
   * in force when the user was created gives (src/domain/notifications/rules.ts isControl), so changing
   * the ratio never moves a user who exists.
   */
  controlRatios: [from: string, ratio: number][];
  defaultTimeZone: string;
  email: { from: string | null; replyTo: string | null };
  recap: { aggregation: 'weekly' | 'monthly' };
  /** The base of the links in emails (unsubscribe, preferences page). */
  publicUrl: string | null;
  /** The organization's branding (Trophy's `/settings`); absent: the defaults (src/domain/settings.ts). */
  branding?: Branding;
  /** Days after a user's first event that measure retention (Trophy's `/settings`, 3..30); absent: 14. */
  userActivationWindow?: number;
  created: string;
  updated: string;
}

/** The organization's branding, as Trophy's Admin API 1.26.0 `/settings` shows it. */
export interface Branding {
  appName: string;
  appUrl: string;
  brandColor: string;
  font: string;
  logo: { url: string } | null;
  appIcon: { url: string } | null;
}

/** A notification template (docs/notifications.md): Liquid texts, checked when written. */
export interface NotificationTemplate {
  id: string;
  key: string;
  name: string;
  type: NotificationType;
  channel: Channel;
  status: 'active' | 'inactive';
  subject: string | null;
  html: string | null;
  text: string | null;
  title: string | null;
  body: string | null;
  userAttributes: AttributeFilter[];
  created: string;
  updated: string;
}

/** The webhook event types (docs/webhooks.md; Trophy's names). */
export const WEBHOOK_TYPES = [
  'achievement.completed', 'streak.started', 'streak.extended', 'streak.lost', 'streak.freeze_consumed', 'streak.freeze_earned',
  'points.changed', 'points.level_changed', 'points.boost_started', 'points.boost_finished',
  'leaderboard.started', 'leaderboard.changed', 'leaderboard.finished', 'leaderboard.rank_changed',
  'emails.recap_due', 'emails.reactivation_due', 'emails.streak_reminder_due', 'emails.achievement_due',
  'event.voided', 'achievement.revoked', 'user.excluded', 'user.included',
  'league.promoted', 'league.demoted', 'league.stayed',
] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

/** A webhook endpoint (docs/webhooks.md): account-wide configuration; its deliveries name their tenant. */
export interface Webhook {
  id: string;
  name: string;
  url: string;
  events: WebhookType[];
  /** `disabled`: the receiver answered 410 (an admin sets it active again). */
  status: 'active' | 'inactive' | 'disabled';
  /** The signing secret, `whsec_<base64>`; answered once, when the endpoint is created or rotated. */
  secret: string;
  /** The secret before the last rotation, which signs beside the new one until `previousUntil` (ISO-8601). */
  previousSecret: string | null;
  previousUntil: string | null;
  created: string;
  updated: string;
}

export interface EntityByKind {
  metrics: Metric;
  attributes: Attribute;
  tenants: Tenant;
  apikeys: ApiKeyRecord;
  achievements: Achievement;
  settings: StreakSettings;
  points: PointsSystem;
  ptriggers: PointsTrigger;
  plevels: PointsLevel;
  pboosts: PointsBoost;
  leaderboards: Leaderboard;
  nsettings: NotificationSettings;
  ntemplates: NotificationTemplate;
  webhooks: Webhook;
}

/** The field each kind keeps unique. */
export const UNIQUE_FIELD: Record<ConfigKind, string> = {
  metrics: 'key',
  attributes: 'key',
  tenants: 'customerId',
  apikeys: 'hash',
  achievements: 'key',
  settings: '',
  points: 'key',
  ptriggers: '',
  plevels: 'scopedKey',
  pboosts: '',
  leaderboards: 'key',
  nsettings: '',
  ntemplates: 'key',
  webhooks: '',
};

export const CONFIG_KINDS: ConfigKind[] = [
  'metrics', 'attributes', 'tenants', 'apikeys', 'achievements', 'settings', 'points', 'ptriggers', 'plevels', 'pboosts',
  'leaderboards', 'nsettings', 'ntemplates', 'webhooks',
];
