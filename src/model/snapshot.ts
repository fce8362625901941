/**
 * One version of the whole configuration, indexed for lookups: immutable, read by a request from
 * start to end. What the scripts need of it is compiled once per version (src/config/plans/).
 */
import {
  CONFIG_KINDS, type Achievement, type ApiKeyRecord, type Attribute, type ConfigKind, type EntityByKind, type Leaderboard, type Metric,
  type NotificationSettings, type NotificationTemplate, type PointsBoost, type PointsLevel, type PointsSystem, type PointsTrigger, type StreakSettings, type Tenant, type Webhook,
} from './entities.js';

export class Snapshot {
  readonly version: number;
  readonly metrics: Map<string, Metric>;
  readonly metricsByKey: Map<string, Metric>;
  readonly attributes: Map<string, Attribute>;
  readonly userAttributes: Map<string, Attribute>;
  readonly eventAttributes: Map<string, Attribute>;
  readonly tenants: Map<string, Tenant>;
  readonly tenantsByCustomerId: Map<string, Tenant>;
  readonly apiKeys: Map<string, ApiKeyRecord>;
  readonly apiKeysByHash: Map<string, ApiKeyRecord>;
  readonly achievements: Map<string, Achievement>;
  readonly achievementsByKey: Map<string, Achievement>;
  /** The streak rule; null until configured (then no streak extends). */
  readonly streak: StreakSettings | null;
  private readonly settings: Map<string, StreakSettings>;
  readonly pointsSystems: Map<string, PointsSystem>;
  readonly pointsSystemsByKey: Map<string, PointsSystem>;
  readonly pointsTriggers: Map<string, PointsTrigger>;
  readonly pointsLevels: Map<string, PointsLevel>;
  readonly pointsBoosts: Map<string, PointsBoost>;
  readonly leaderboards: Map<string, Leaderboard>;
  readonly leaderboardsByKey: Map<string, Leaderboard>;
  /** Levels of each system, lowest threshold first. */
  readonly levelsBySystem: Map<string, PointsLevel[]>;
  /** The notification settings; null until set (the defaults apply: src/domain/notifications/rules.ts). */
  readonly notifications: NotificationSettings | null;
  private readonly notificationSettings: Map<string, NotificationSettings>;
  /** Notification templates, oldest first (the first created wins among those that match). */
  readonly templates: Map<string, NotificationTemplate>;
  readonly webhooks: Map<string, Webhook>;

  constructor(version: number, raw: Record<ConfigKind, Record<string, string>>) {
    this.version = version;
    const parse = <K extends ConfigKind>(kind: K): EntityByKind[K][] =>
      // Ids are time-ordered UUIDs (v7): by id is by creation.
      Object.values(raw[kind]).map((json) => JSON.parse(json) as EntityByKind[K])
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const metrics = parse('metrics');
    this.metrics = new Map(metrics.map((m) => [m.id, m]));
    this.metricsByKey = new Map(metrics.map((m) => [m.key, m]));
    const attributes = parse('attributes');
    this.attributes = new Map(attributes.map((a) => [a.id, a]));
    this.userAttributes = new Map(attributes.filter((a) => a.type === 'user').map((a) => [a.key, a]));
    this.eventAttributes = new Map(attributes.filter((a) => a.type === 'event').map((a) => [a.key, a]));
    const tenants = parse('tenants');
    this.tenants = new Map(tenants.map((t) => [t.id, t]));
    this.tenantsByCustomerId = new Map(tenants.map((t) => [t.customerId, t]));
    const keys = parse('apikeys');
    this.apiKeys = new Map(keys.map((k) => [k.id, k]));
    this.apiKeysByHash = new Map(keys.map((k) => [k.hash, k]));
    const achievements = parse('achievements');
    this.achievements = new Map(achievements.map((a) => [a.id, a]));
    this.achievementsByKey = new Map(achievements.map((a) => [a.key, a]));
    this.settings = new Map(parse('settings').map((x) => [x.id, x]));
    this.streak = this.settings.get('streaks') ?? null;
    const systems = parse('points');
    this.pointsSystems = new Map(systems.map((x) => [x.id, x]));
    this.pointsSystemsByKey = new Map(systems.map((x) => [x.key, x]));
    this.pointsTriggers = new Map(parse('ptriggers').map((x) => [x.id, x]));
    const levels = parse('plevels');
    this.pointsLevels = new Map(levels.map((x) => [x.id, x]));
    this.pointsBoosts = new Map(parse('pboosts').map((x) => [x.id, x]));
    const boards = parse('leaderboards');
    this.leaderboards = new Map(boards.map((x) => [x.id, x]));
    this.leaderboardsByKey = new Map(boards.map((x) => [x.key, x]));
    this.notificationSettings = new Map(parse('nsettings').map((x) => [x.id, x]));
    this.notifications = this.notificationSettings.get('notifications') ?? null;
    this.templates = new Map(parse('ntemplates').map((x) => [x.id, x]));
    this.webhooks = new Map(parse('webhooks').map((x) => [x.id, x]));
    this.levelsBySystem = new Map();
    for (const level of [...levels].sort((a, b) => a.points - b.points)) {
      const list = this.levelsBySystem.get(level.systemId) ?? [];
      list.push(level);
      this.levelsBySystem.set(level.systemId, list);
    }
  }

  private byId<K extends ConfigKind>(kind: K): Map<string, EntityByKind[K]> {
    return {
      metrics: this.metrics, attributes: this.attributes, tenants: this.tenants, apikeys: this.apiKeys,
      achievements: this.achievements, settings: this.settings, points: this.pointsSystems, ptriggers: this.pointsTriggers,
      plevels: this.pointsLevels, pboosts: this.pointsBoosts, leaderboards: this.leaderboards,
      nsettings: this.notificationSettings, ntemplates: this.templates, webhooks: this.webhooks,
    }[kind] as Map<string, EntityByKind[K]>;
  }

  /** Every entity of a kind, oldest first. */
  list<K extends ConfigKind>(kind: K): EntityByKind[K][] {
    return [...this.byId(kind).values()];
  }

  get<K extends ConfigKind>(kind: K, id: string): EntityByKind[K] | undefined {
    return this.byId(kind).get(id);
  }
}

/** Raw configuration with nothing in it: what a process holds before its first load. */
export function emptyRaw(): Record<ConfigKind, Record<string, string>> {
  return Object.fromEntries(CONFIG_KINDS.map((k) => [k, {}])) as Record<ConfigKind, Record<string, string>>;
}
