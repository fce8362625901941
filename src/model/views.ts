/**
 * What the Admin API and the Application API answer, declared once: the routes' view functions
 * are typed with these shapes (so the compiler holds them to it), and the dashboard imports the
 * same declarations (its types.ts re-exports them). Types only, and nothing of Node's: the dashboard's
 * build reads this file as it is.
 */
import type { AchievementTrigger, AttributeFilter, LeaderboardStatus, WebhookType } from './entities.js';

export type { AttributeFilter, LeaderboardStatus, WebhookType };

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
}

/** An attribute of users or events (`/admin/v1/attributes`). */
export interface AttributeView {
  id: string;
  name: string;
  key: string;
  type: 'user' | 'event';
}

/** A tenant (`/admin/v1/tenants`). */
export interface TenantView {
  id: string;
  customerId: string;
  name: string;
  status: 'active' | 'archived';
  created: string;
  updated: string;
}

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
export interface PointsBoostAdminView {
  id: string;
  name: string;
  status: 'active' | 'scheduled' | 'finished';
  start: string;
  end: string | null;
  multiplier: number;
  rounding: 'down' | 'up' | 'nearest';
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
  maxParticipants: number;
  start: string;
  breakdownAttributes: string[];
  end?: string;
  startTime?: string;
  endTime?: string;
  runUnit?: 'day' | 'month' | 'year';
  runInterval?: number;
}

/** A ranking's row (`GET /api/leaderboards/:key`). */
export interface RankingView {
  userId: string;
  userName: string | null;
  rank: number;
  value: number;
}

/**
 * What `GET /api/leaderboards/:key` answers of a run, beside the board's fields: its rankings, its
 * days, and once the workers finalised it, when and its winners (the top three; laurel's addition).
 */
export interface LeaderboardRunView {
  rankings: RankingView[];
  run: string;
  runEnd: string | null;
  finalised: string | null;
  winners: { userId: string; rank: number; value: number }[] | null;
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

/** `GET /admin/v1/users`: a page of users in id order, and the cursor of the next (null: the last page). */
export interface UserListView {
  users: UserListItem[];
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
  users: number;
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
