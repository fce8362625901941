/**
 * What the Admin API and the Application API answer, declared once: the routes' view functions
 * are typed with these shapes (so the compiler holds them to it), and the dashboard imports the
 * same declarations (its types.ts re-exports them). Types only, and nothing of Node's: the dashboard's
 * build reads this file as it is.
 */
import type { AchievementTrigger, AttributeFilter, League, LeaderboardStatus, MaxAwards, MetricLimits, NotificationType, PointsSystem, Tenant, WebhookType } from './entities.js';

export type { AttributeFilter, LeaderboardStatus, NotificationType, WebhookType };

/** An issue of a batch answer (`{ created | updated | deleted, issues }`). */
export interface Issue {
  id?: string;
  userId?: string;
  index?: number;
  severity: 'error' | 'warning';
  message: string;
}

/** A badge as the Admin API shows one. */
export interface Badge {
  url: string;
}

/** A metric (`/admin/v1/metrics`). */
export interface MetricView {
  id: string;
  name: string;
  key: string;
  unitType: 'number' | 'currency';
  units: string;
  status: 'active' | 'archived';
  /** Only when the metric has a limit. */
  limits?: MetricLimits;
}

/** An attribute of users or events (`/admin/v1/attributes`). */
export interface AttributeView {
  id: string;
  name: string;
  key: string;
  type: 'user' | 'event';
}

/** A tenant (`/admin/v1/tenants`): as it is kept. */
export type TenantView = Tenant;

/** An API key (`/admin/v1/api-keys`), never its secret: `key` only in the create's answer. */
export interface ApiKeyView {
  id: string;
  name: string;
  kind: 'admin' | 'application';
  tenantId: string | null;
  /** The first characters of the key, with an ellipsis. */
  prefix: string;
  created: string;
  key?: string;
}

/** A key scoped to one user (`/admin/v1/application-api-keys`), as its create answers it once. */
export interface UserKeyView {
  id: string;
  userId: string;
  key: string;
  prefix: string;
}

/** An achievement as the Admin API shows it (`/admin/v1/achievements`). */
export interface AdminAchievementView {
  id: string;
  name: string;
  key: string;
  trigger: AchievementTrigger;
  description: string | null;
  badge: Badge | null;
  metricId?: string;
  metricValue?: number;
  streakLength?: number;
  anniversaryYears?: number;
  achievementIds: string[];
  userAttributes: AttributeFilter[];
  eventAttributes: AttributeFilter[];
  status: 'active' | 'inactive' | 'locked' | 'archived';
  created: string;
  updated: string;
}

/** An achievement as the Application API shows it (trophy AchievementResponse, 1.21.1). */
export interface AchievementView {
  id: string;
  key: string;
  name: string;
  trigger: string;
  description: string | null;
  badgeUrl: string | null;
  userAttributes: { key: string; value: string }[];
  metricId?: string;
  metricValue?: number;
  metricName?: string;
  eventAttributes?: { key: string; value: string }[];
  eventAttribute?: { key: string; value: string };
  streakLength?: number;
  anniversaryYears?: number;
  achievementIds?: string[];
}

/** An achievement of a user (`GET /api/users/:id/achievements`): when they completed it, null when open. */
export interface UserAchievementView extends AchievementView {
  achievedAt: string | null;
}

/**
 * An item of `GET /api/users/:id/achievements`: with its completions and rarity in the tenant, and
 * an open metric achievement's progress (with `includeIncomplete=true`).
 */
export interface UserAchievementStatsView extends UserAchievementView {
  completions: number;
  rarity: number;
  progress?: { current: number; target: number };
}

/** `GET /api/achievements`: each with its completions and rarity in the tenant. */
export interface AchievementStatsView extends AchievementView {
  completions: number;
  /** Percent of the tenant's users, two decimals. */
  rarity: number;
}

/** A points system (`/admin/v1/points`). */
export interface PointsSystemAdminView {
  id: string;
  name: string;
  key: string;
  description: string;
  status: 'active' | 'archived';
  badge: Badge | null;
  maxPoints: number | null;
}

/** A trigger of a points system (`/admin/v1/points/:id/triggers`): the fields of its type only. */
export interface PointsTriggerAdminView {
  id: string;
  type: 'metric' | 'achievement' | 'streak' | 'time' | 'user_creation';
  points: number;
  status: 'active' | 'inactive';
  userAttributes: AttributeFilter[];
  metricId?: string | null;
  metricThreshold?: number | null;
  eventAttributes?: AttributeFilter[];
  achievementId?: string | null;
  streakLength?: number | null;
  timeUnit?: 'hours' | 'days' | null;
  timeInterval?: number | null;
  blockIfOutOfPoints: boolean;
  /** Only when set. */
  cooldownSeconds?: number;
  maxAwards?: MaxAwards;
}

/** A level of a points system (`/admin/v1/points/:id/levels`). */
export interface PointsLevelAdminView {
  id: string;
  name: string;
  key: string;
  points: number;
  description: string;
  badge: Badge | null;
}

/** A boost of a points system (`/admin/v1/points/:id/boosts`); `userAttributes` on a boost for everyone only. */
export interface PointsBoostAdminView extends PointsBoostView {
  userId: string | null;
  userAttributes?: AttributeFilter[];
}

/** One bucket of `GET /api/points/:key/summary`: the users whose total is from `from` to `to`. */
export interface PointsRange {
  from: number;
  to: number;
  users: number;
}

/**
 * A leaderboard as the Admin API shows it (`/admin/v1/leaderboards`): the fields a board does not
 * have (a description, an end, a daily window, runs) are left out, never null.
 */
export interface LeaderboardAdminView {
  id: string;
  name: string;
  key: string;
  description?: string;
  /** The status users see (the clock moves a scheduled board to active, an ended one to finished). */
  status: LeaderboardStatus;
  rankBy: 'metric' | 'points' | 'streak';
  metricId?: string | null;
  pointsSystemId?: string | null;
  /** null: uncapped (every participant ranked). */
  maxParticipants: number | null;
  /** laurel's: the rankings each run is spread over, when more than one. */
  shards?: number;
  start: string;
  breakdownAttributes: string[];
  end?: string;
  startTime?: string;
  endTime?: string;
  runUnit?: 'day' | 'month' | 'year';
  runInterval?: number;
  /** laurel's: the board's league (docs/api.md, "Leagues"). */
  league?: League;
}

/** A ranking's row (`GET /api/leaderboards/:key`). */
export interface RankingView {
  userId: string;
  userName: string | null;
  rank: number;
  value: number;
  /** laurel's: the share of the run's (or group's, or cohort's) participants this row ranks at or above, 0 to 100. */
  percentile: number;
}

/**
 * A row of a friends board (`GET /api/leaderboards/:key?userIds=`): `rank` among the users listed,
 * `boardRank` and `percentile` on the whole run (or group).
 */
export interface FriendRankingView {
  userId: string;
  userName: string | null;
  rank: number;
  boardRank: number;
  value: number;
  percentile: number;
}

/**
 * What `GET /api/leaderboards/:key` answers of a run, beside the board's fields: its rankings, its
 * days, and once the workers finalised it, when and its winners (the top three; laurel's addition).
 */
export interface LeaderboardRunView {
  /** A friends board's rows (`userIds`), or a page's. */
  rankings: RankingView[] | FriendRankingView[];
  /** The run's (or group's) users ranked. */
  participants: number;
  /** With `userId` (not `userIds`): that user's percentile (null: not ranked). */
  percentile?: number | null;
  run: string;
  runEnd: string | null;
  finalised: string | null;
  winners: { userId: string; rank: number; value: number }[] | null;
  /** A league's cohort (`?cohort=`): its id. */
  cohort?: string;
}

/** A webhook endpoint (`/admin/v1/webhooks`); `secret` only when it was made or rotated. */
export interface WebhookView {
  id: string;
  name: string;
  url: string;
  events: WebhookType[];
  status: 'active' | 'inactive' | 'disabled';
  created: string;
  updated: string;
  secret?: string;
}

/** A delivery to a webhook endpoint (`/admin/v1/webhooks/:id/deliveries`). */
export interface WebhookDeliveryView {
  id: string;
  webhookId: string;
  type: string;
  tenant: string;
  userId: string | null;
  status: string;
  dueAt: string;
  attempts: number;
  lastStatus: number | null;
  error: string | null;
  created: string;
  deliveredAt: string | null;
  payload: unknown;
}

/** A notification template (`/admin/v1/notifications/templates`): an email's texts or a push's. */
export interface NotificationTemplateView {
  id: string;
  key: string;
  name: string;
  type: 'achievement_completed' | 'recap' | 'reactivation' | 'streak_reminder';
  channel: 'email' | 'push';
  status: 'active' | 'inactive';
  subject?: string | null;
  html?: string | null;
  text?: string | null;
  title?: string | null;
  body?: string | null;
  userAttributes: AttributeFilter[];
  created: string;
  updated: string;
}

/** A notification delivery (`/admin/v1/notifications/deliveries`). */
export interface NotificationDeliveryView {
  id: string;
  type: string;
  channel: string;
  userId: string;
  status: string;
  /** Why it was suppressed or cancelled. */
  reason?: string;
  scheduledFor: string;
  sentAt: string | null;
  attempts: number;
  error?: string;
}

/** A user (`GET /api/users/:id`); `control`: the user is in the notifications' control group. */
export interface UserView {
  id: string;
  email: string | null;
  name: string | null;
  tz: string | null;
  deviceTokens: string[] | null;
  subscribeToEmails: boolean;
  attributes: Record<string, string>;
  control: boolean;
  /** Only for a user excluded from the rankings (laurel's own: docs/api.md, "Fair play: excluding a user"). */
  excluded?: true;
  created: string;
  updated: string;
}

/** A user of the list (`GET /admin/v1/users`): what the log drain saw of them (the user directory). */
export interface UserListItem {
  id: string;
  email: string | null;
  name: string | null;
  attributes: Record<string, string>;
  /** When the user was first seen (ISO-8601). */
  firstSeen: string;
  /** The last UTC day with an event or an API completion (YYYY-MM-DD), or null. */
  lastActive: string | null;
}

/** GET /admin/v1/users/{id}/clock: the user's zone and their time now on their clock (src/domain/clock.ts). */
export interface UserClockView {
  tz: string | null;
  date: string;
  hour: number;
  held: boolean;
  jumped: { first: string; last: string } | null;
  stored: { date: string; hour: number; lastEventAt: string } | null;
}

/** `GET /admin/v1/users`: a page of users in id order, and the cursor of the next (null: the last page). */
export interface UserListView {
  users: UserListItem[];
  next: string | null;
}

/** An entry of `GET /admin/v1/audit`: one Admin API write. */
export interface AuditEntryView {
  id: string;
  /** When it was answered (ISO-8601). */
  at: string;
  keyId: string;
  keyName: string;
  /** The tenant it acted for (`_` the default tenant, else the tenant's id), or null for the whole account. */
  tenantId: string | null;
  /** The method and the route: `PATCH /admin/v1/metrics`. */
  operation: string;
  ids: string[];
  /** The request body without its secrets, or null. */
  body: unknown;
  status: number;
  /** The request's id, as its answer's X-Request-Id and its log lines gave it (null: written before laurel kept it). */
  requestId: string | null;
}

/** `GET /admin/v1/audit`: a page of entries, newest first, and the cursor of the next (null: the last page). */
export interface AuditPageView {
  entries: AuditEntryView[];
  next: string | null;
}

/** One day of `GET /admin/v1/analytics`. */
export interface AnalyticsDay {
  date: string;
  events: number;
  activeUsers: number;
  /** Users with an event in the 7 days ending that day (an estimate: HyperLogLog). */
  weeklyActiveUsers: number;
  newUsers: number;
  completions: number;
  /** Events by metric key. */
  byMetric: Record<string, number>;
}

/** Each achievement's completion in the range: its users, and their share of the range's active users (0 to 1). */
export interface AchievementShare {
  id: string;
  key: string;
  name: string;
  /** Users who completed it in the range. */
  users: number;
  /** users / the range's active users, 0 to 1 to 4 places (0 when none was active). */
  share: number;
}

/** The 14-day retention of the control group against the rest. */
export interface RetentionView {
  days: number;
  cohortFrom: string | null;
  cohortTo: string | null;
  control: { users: number; retained: number };
  rest: { users: number; retained: number };
}

/** The active streaks whose length is from `from` to `to` (null: no bound). */
export interface StreakBucket {
  from: number;
  to: number | null;
  users: number;
}

/** `GET /admin/v1/analytics`. */
export interface AnalyticsView {
  from: string;
  to: string;
  days: AnalyticsDay[];
  /** The distinct users active in the range (an estimate: HyperLogLog). */
  activeUsers: number;
  achievements: AchievementShare[];
  retention: RetentionView;
  streaks: StreakBucket[];
}

/** A user's own streak rule (`GET /api/users/:id/preferences`): the fields they set only. */
export interface StreakPreferencesView {
  enabled?: boolean;
  evaluationMode?: 'OR' | 'AND';
  metrics?: { key: string; threshold: number }[];
}

/** `GET /api/users/:id/preferences`: the channels of each notification type set, and the user's streak rule if any. */
export interface PreferencesView {
  notifications: Partial<Record<NotificationType, string[]>>;
  streak?: StreakPreferencesView;
}

/** A streak as it stands now (the Application API's StreakResponse fields; freezes when the rule has them). */
export interface StreakView {
  length: number;
  frequency: 'daily' | 'weekly' | 'monthly';
  started: string | null;
  periodStart: string | null;
  periodEnd: string | null;
  expires: string | null;
  freezes?: number;
  maxFreezes?: number;
  freezeAutoEarnInterval?: number;
  freezeAutoEarnAmount?: number;
}

/** A period of a streak's history. */
export interface StreakPeriodView {
  periodStart: string;
  periodEnd: string;
  length: number;
  usedFreeze?: boolean;
  /** Always present (StreakResponse 1.21.1 requires it); `usedFreeze` only when freezes are on. */
  usedPause: boolean;
}

/** A pause of a user's streak ahead (its dates in the user's zone). */
export interface StreakPauseView {
  id: string;
  start: string;
  end: string;
}

/** `GET /api/users/:id/streak`: the streak, when last extended, its history, rank and the pauses ahead. */
export interface UserStreakView extends StreakView {
  extended: string | null;
  streakHistory: StreakPeriodView[];
  rank: number | null;
  pauses: StreakPauseView[];
}

/**
 * The streak rule (`GET /admin/v1/streaks/settings`): Admin API 1.26.0's StreakSettings with
 * laurel's earlier fields beside them (`evaluation`, each metric's `metricId`, the freezes'
 * `initial`/`max`); `updated` once a rule is saved.
 */
export interface StreakSettingsView {
  frequency: 'daily' | 'weekly' | 'monthly';
  evaluationMode: 'OR' | 'AND';
  customizationEnabled: boolean;
  daysOff: number[];
  evaluation: 'all' | 'any';
  metrics: { key: string; threshold: number; metricId: string }[];
  freezes: {
    startCount: number;
    maxCount: number;
    /** null while freezes are not earned. */
    autoEarnInterval: number | null;
    autoEarnAmount: number | null;
    initial: number;
    max: number;
  } | null;
  updated?: string;
}

/** An issue of the streaks' bulk answers (freezes, restore, reset, pauses): the 1.26.0 names and laurel's. */
export interface BulkIssue {
  userId: string;
  level: 'error' | 'warning';
  reason: string;
  severity: 'error' | 'warning';
  message: string;
}

/** A pause made by `POST /admin/v1/streaks/pauses`. */
export interface StreakPauseCreated extends StreakPauseView {
  userId: string;
  status: 'active';
}

/** `POST /admin/v1/streaks/pauses`: the pauses made, and an issue for each refused (`index`: its place in the request). */
export interface StreakPausesAnswer {
  created: StreakPauseCreated[];
  issues: (BulkIssue & { index: number })[];
}

/** The notification settings (`GET /admin/v1/notifications/settings`); `updated` once saved. */
export interface NotificationSettingsView {
  controlRatio: number;
  defaultTimeZone: string;
  email: { from: string | null; replyTo: string | null };
  recap: { aggregation: 'weekly' | 'monthly' };
  publicUrl: string | null;
  updated?: string;
}

/** A points system's own fields, as every Application API shape of points starts. */
export type PointsSystemView = Pick<PointsSystem, 'id' | 'key' | 'name' | 'description' | 'badgeUrl' | 'maxPoints'>;

/** A level as the Application API shows it (PointsLevel: `description` '' when none was given). */
export interface PointsLevelView {
  id: string;
  key: string;
  name: string;
  description: string;
  badgeUrl: string | null;
  points: number;
}

/** A trigger as the Application API shows it (PointsTriggerResponse: `hour|day`, `streakLengthThreshold`): the fields of its type only. */
export interface PointsTriggerView {
  id: string;
  type: 'metric' | 'achievement' | 'streak' | 'time' | 'user_creation';
  points: number;
  status: 'active' | 'inactive';
  userAttributes: { key: string; value: string }[];
  created: string;
  updated: string;
  metricId?: string | null;
  metricThreshold?: number | null;
  metricName?: string | null;
  eventAttributes?: { key: string; value: string }[];
  eventAttribute?: { key: string; value: string };
  achievementId?: string | null;
  achievementName?: string | null;
  streakLengthThreshold?: number | null;
  timeUnit?: 'hour' | 'day';
  timeInterval?: number | null;
}

/** A boost as the Application API shows it (PointsBoost, 1.21.1). */
export interface PointsBoostView {
  id: string;
  name: string;
  status: 'active' | 'scheduled' | 'finished';
  start: string;
  end: string | null;
  multiplier: number;
  rounding: 'down' | 'up' | 'nearest';
}

/**
 * An award of points: its trigger (only `{ id }` once the trigger is gone; `{ id: 'void', type:
 * 'void' }` for the points a voided event's award took back) and the boosts that multiplied it.
 */
export interface PointsAwardView {
  id: string;
  awarded: number;
  date: string;
  total: number;
  trigger: PointsTriggerView | { id: string; type?: 'void' };
  boosts: PointsBoostView[];
}

/** `GET /api/users/:id/points/:key`: the system, the user's total, level and newest awards. */
export interface UserPointsView extends PointsSystemView {
  total: number;
  level: PointsLevelView | null;
  awards: PointsAwardView[];
}

/**
 * A leaderboard as the Application API shows it (its breakdown by attribute key); what a metric or
 * points board ranks, by key and name.
 */
export interface LeaderboardView {
  id: string;
  name: string;
  key: string;
  status: LeaderboardStatus;
  rankBy: 'metric' | 'points' | 'streak';
  description: string | null;
  breakdownAttribute: string | null;
  breakdownAttributes: string[];
  start: string;
  end: string | null;
  startTime: string | null;
  endTime: string | null;
  /** An uncapped board's is NO_CAP (src/domain/leaderboards/cap.ts), with `uncapped: true`. */
  maxParticipants: number;
  /** laurel's: present (true) on an uncapped board only. */
  uncapped?: true;
  runUnit: 'day' | 'month' | 'year' | null;
  runInterval: number | null;
  metricKey?: string | null;
  metricName?: string | null;
  pointsSystemKey?: string | null;
  pointsSystemName?: string | null;
}

/** A day of a user's ranks on a board (`history` of `GET /api/users/:id/leaderboards/:key`). */
export interface RankDay {
  /** The user's local date, YYYY-MM-DD. */
  date: string;
  /** When that local day began (ISO, UTC): the spec's deprecated `timestamp`, a Date to SDK 1.0.42. */
  timestamp: string;
  /** Ranks and values before the day's first change, and after its last. */
  previousRank: number | null;
  rank: number | null;
  previousValue: number | null;
  value: number | null;
}

/** `GET /api/users/:id/leaderboards/:key`: the board, the user's rank and value in the run (null: not ranked), their days. */
export interface UserLeaderboardView extends LeaderboardView {
  rank: number | null;
  value: number | null;
  /** The run's (or the user's group's) users ranked; null for a user in no group of the board. */
  participants: number | null;
  /** The share of participants the user ranks at or above (src/domain/leaderboards/cap.ts); null when not ranked. */
  percentile: number | null;
  history: RankDay[];
  run: string;
  runEnd: string | null;
}

/** A user's place in a ranking as the live updates carry it. */
export interface RankedView {
  userId: string;
  rank: number;
  value: number;
}

/** A board of a run as the live updates carry it (with its group's value on a board with groups). */
export interface LiveBoardView extends LeaderboardView {
  breakdownAttributeValue?: string;
  /** On a league's topic: the cohort's id (`<tier key>-<number from 1>`). */
  cohort?: string;
}

/** The data of `leaderboard.changed` on a board's live topic: the board and its top 10. */
export interface LeaderboardChangedData {
  leaderboard: LiveBoardView & { rankings: RankedView[] };
}

/** The data of `leaderboard.rank_changed` on a live topic: the user, and their rank and value now and before (null: new). */
export interface LeaderboardRankChangedData {
  user: UserView;
  leaderboard: LiveBoardView & { rank: number; value: number; previousRank: number | null; previousValue: number | null };
}

/** A league's tier as the reads show it: its key, name and index (0 the lowest). */
export interface LeagueTierView {
  key: string;
  name: string;
  index: number;
}

/**
 * `GET /v1/users/:id/leagues/:key`: the user's tier and, once placed in the run, their cohort (its
 * id, the user's rank and value, its participants, the user's zone, the whole cohort ranked);
 * cohort null and no rank before the user's first scoring event of the run.
 */
export interface UserLeagueView {
  key: string;
  name: string;
  tier: LeagueTierView;
  run: string;
  runEnd: string | null;
  cohort: string | null;
  rank: number | null;
  value: number | null;
  participants: number;
  zone: 'promote' | 'stay' | 'demote' | null;
  /** Once the run is final: how the user moved for the next run. */
  outcome: LeagueOutcome | null;
  rankings: RankingView[];
}

/** What a league's finalisation made of a user in their cohort. */
export type LeagueOutcome = 'promoted' | 'demoted' | 'stayed';

/** How many users of a cohort, or tier, moved each way when the run was finalised. */
export type LeagueMovesView = Record<LeagueOutcome, number>;

/** `GET /admin/v1/leaderboards/:id/league`: a run's tiers, each with its cohorts and participants. */
export interface LeagueSummaryView {
  leaderboardId: string;
  key: string;
  run: string;
  runEnd: string | null;
  cohortSize: number;
  /** Whether the run is final: its users moved. */
  finalised: boolean;
  /** Each tier with the page's cohorts of it; `participants` and `moves` add up those cohorts. */
  tiers: (LeagueTierView & {
    /** Every cohort the tier opened in the run, on this page or not. */
    cohortCount: number;
    participants: number;
    /** Once the run is final (else null). */
    moves: LeagueMovesView | null;
    cohorts: { cohort: string; participants: number; moves: LeagueMovesView | null }[];
  })[];
  /** The `cursor` of the next page of cohorts; null on the last. */
  next: string | null;
}

/** `GET /admin/v1/leaderboards/:id/stats`: a run's participants, rank changes and score distribution, and the runs before it. */
export interface LeaderboardStatsView {
  leaderboardId: string;
  key: string;
  run: string;
  runEnd: string | null;
  participants: number;
  /** Breakdown groups of the run (0 on a board without breakdown attributes). */
  groups: number;
  rankChanges: { entered: number; moved: number; pushedOut: number };
  /** `from ≤ value < to`, the last bucket `to` too; empty while nobody ranks. */
  distribution: { from: number; to: number; participants: number }[];
  /** The run and up to nine before it, newest first. */
  runs: { run: string; runEnd: string | null; participants: number }[];
}

/** A user's exclusion from the rankings (`/admin/v1/users/:id/exclusion`). */
export interface ExclusionView {
  userId: string;
  excluded: boolean;
  /** The reason given, and when (ISO-8601); null when not excluded. */
  reason: string | null;
  excludedAt: string | null;
}

/** A voided event as `POST /admin/v1/events/void` answers it. */
export interface VoidedView {
  eventId: string;
  userId: string;
  /** The metric's key. */
  metric: string;
  /** The event's local day. */
  date: string;
  /** What was taken off the total (the part of the event's value that counted). */
  value: number;
  /** The metric's total after. */
  total: number;
  /** Points taken back, by system key (negative). */
  points: Record<string, number>;
}
