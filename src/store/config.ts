/**
 * Configuration: the source of truth lives in Redis under `{cfg}` (one hash per kind, id -> JSON,
 * with a unique index), a version counter is bumped by every write, and every process keeps an
 * immutable in-memory snapshot that it swaps when the version moves (pub/sub, with a polling
 * safety net). A request reads one snapshot from start to end, so it never sees half a change.
 */
import type { Logger } from 'pino';
import { subscribe, type RedisClient, type Subscription } from '../redis/client.js';
import type { RedisOutage } from '../redis/outage.js';
import type { ConfigKind, Keys } from '../redis/keys.js';
import { ScriptCode } from '../redis/scripts.js';
import type { Clock } from '../clock.js';
import { compilePlans, type LuaAchievement, type MetricPlan } from '../domain/achievements.js';
import type { PointsDetails, TimeTrigger } from '../domain/points.js';

export interface Metric {
  id: string;
  key: string;
  name: string;
  unitType: 'number' | 'currency';
  units: string;
  status: 'active' | 'archived';
  created: string;
  updated: string;
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

export type AchievementTrigger = 'metric' | 'streak' | 'api' | 'achievement';
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
  /** Prerequisites of an `achievement` (composite) trigger. */
  achievementIds: string[];
  userAttributes: AttributeFilter[];
  /** Only for `metric`: only events with all these attribute values count. */
  eventAttributes: AttributeFilter[];
  status: AchievementStatus;
  created: string;
  updated: string;
}

export interface StreakSettings {
  /** Always 'streaks': the one settings entity of this kind. */
  id: 'streaks';
  frequency: 'daily' | 'weekly' | 'monthly';
  evaluation: 'all' | 'any';
  metrics: { metricId: string; threshold: number }[];
  freezes: { initial: number; max: number; autoEarnInterval: number; autoEarnAmount: number } | null;
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
  userAttributes: AttributeFilter[];
  created: string;
  updated: string;
}

export type LeaderboardStatus = 'inactive' | 'active' | 'scheduled' | 'finished';

/**
 * A leaderboard (trophy-admin 1.21.1 AdminLeaderboard). `status` is what the admin set; the
 * status users see follows the clock (src/domain/leaderboards.ts leaderboardStatus).
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
  /** 1 to 1000. */
  maxParticipants: number;
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
  /**
   * When an admin set it `finished` (ISO-8601): its last run is the one of that UTC day, final
   * from then on. Absent on boards stored before it existed (then `updated` stands in).
   */
  finishedAt?: string | null;
  /**
   * Users have seen it active or finished: what its rankings are kept by stays fixed, also if it is
   * made inactive again (src/routes/admin-leaderboards.ts, checkRanked). Absent: not yet.
   */
  shown?: true;
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
};

export const CONFIG_KINDS: ConfigKind[] = [
  'metrics', 'attributes', 'tenants', 'apikeys', 'achievements', 'settings', 'points', 'ptriggers', 'plevels', 'pboosts',
  'leaderboards',
];
const KINDS = CONFIG_KINDS;

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
  /** What the event script needs of each metric's achievements, compiled once per version. */
  readonly plans: Map<string, MetricPlan>;
  /** The active composites, prerequisites first, in their Lua form. */
  readonly composites: LuaAchievement[];
  /** The points triggers that do not depend on a metric (achievement, streak, user creation), with the caps; null: none. */
  readonly points: PointsDetails | null;
  /** The active time triggers (accrued by the api and the workers, src/points-time.ts). */
  readonly timeTriggers: TimeTrigger[];

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
    this.levelsBySystem = new Map();
    for (const level of [...levels].sort((a, b) => a.points - b.points)) {
      const list = this.levelsBySystem.get(level.systemId) ?? [];
      list.push(level);
      this.levelsBySystem.set(level.systemId, list);
    }
    const compiled = compilePlans(this);
    this.plans = compiled.plans;
    this.composites = compiled.composites;
    this.points = compiled.points;
    this.timeTriggers = compiled.timeTriggers;
  }

  private byId<K extends ConfigKind>(kind: K): Map<string, EntityByKind[K]> {
    return {
      metrics: this.metrics, attributes: this.attributes, tenants: this.tenants, apikeys: this.apiKeys,
      achievements: this.achievements, settings: this.settings, points: this.pointsSystems, ptriggers: this.pointsTriggers,
      plevels: this.pointsLevels, pboosts: this.pointsBoosts, leaderboards: this.leaderboards,
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

export type PutResult = 'ok' | 'exists' | 'not_found' | 'duplicate';

export class ConfigStore {
  private snapshot: Snapshot = new Snapshot(0, Object.fromEntries(CONFIG_KINDS.map((k) => [k, {}])) as Record<ConfigKind, Record<string, string>>);
  private readonly redis: RedisClient;
  private readonly keys: Keys;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly outage: RedisOutage | null;
  private subscriber: Subscription | null = null;
  private poller: NodeJS.Timeout | null = null;
  private stopped = false;
  private reloading: Promise<void> = Promise.resolve();
  private clockSeq = 0;
  private readonly listeners: ((s: Snapshot) => void)[] = [];
  loaded = false;

  constructor(redis: RedisClient, keys: Keys, clock: Clock, log: Logger, outage: RedisOutage | null = null) {
    this.redis = redis;
    this.outage = outage;
    this.keys = keys;
    this.clock = clock;
    this.log = log;
  }

  get current(): Snapshot {
    return this.snapshot;
  }

  onChange(listener: (s: Snapshot) => void): void {
    this.listeners.push(listener);
  }

  /** Reads the whole configuration (one slot, one pipeline) and swaps the snapshot. */
  /**
   * Reads the whole configuration (one slot, one pipeline) and swaps the snapshot. Reloads run one
   * after another, each reading after the previous one finished, so a caller that just wrote sees
   * its write; a snapshot never replaces a newer one.
   */
  reload(): Promise<void> {
    const run = async () => {
      const pipeline = this.redis.pipeline();
      pipeline.get(this.keys.configVersion);
      for (const kind of KINDS) pipeline.hgetall(this.keys.config(kind));
      pipeline.get(this.keys.clock);
      const results = (await pipeline.exec()) ?? [];
      for (const [err] of results) if (err) throw err;
      const version = Number(results[0][1] ?? 0);
      const raw = {} as Record<ConfigKind, Record<string, string>>;
      KINDS.forEach((kind, i) => { raw[kind] = results[i + 1][1] as Record<string, string>; });
      if (!this.loaded || version > this.snapshot.version) {
        this.snapshot = new Snapshot(version, raw);
        for (const l of this.listeners) l(this.snapshot);
      }
      this.applyClock(results[KINDS.length + 1][1] as string | null);
      this.loaded = true;
    };
    this.reloading = this.reloading.then(run, run);
    return this.reloading;
  }

  /** The manual clock travels as `<sequence>:<ms>`; an older setting never overrides a newer one. */
  private applyClock(raw: string | null): void {
    if (this.clock.mode !== 'manual' || raw === null) return;
    const [seq, ms] = raw.split(':').map(Number);
    if (seq > this.clockSeq) {
      this.clockSeq = seq;
      this.clock.set(ms);
    }
  }

  /** Loads, then follows changes: pub/sub for speed, a version poll in case a message is lost. */
  async start(pollMs = 2000): Promise<void> {
    await this.reload();
    // A reload the store's own stop overtakes (its connections closing) is no failure worth a warning.
    const reload = (what: string) => {
      if (this.stopped) return;
      this.reload().catch((err) => { if (!this.stopped) this.warn(err, what); });
    };
    this.subscriber = await subscribe(this.redis, this.keys.channel, {
      message: () => reload('configuration reload failed'),
      error: (err) => this.warn(err, 'configuration subscriber error'),
      // Messages published while the subscriber was away are lost: read the version now.
      resubscribed: () => reload('configuration reload failed'),
      connection: (client) => this.outage?.watch(client, 'configuration subscriber'),
    });
    this.poller = setInterval(() => {
      this.redis.get(this.keys.configVersion).then((v) => {
        if (Number(v ?? 0) !== this.snapshot.version) return this.reload();
      }).catch((err) => { if (!this.stopped) this.warn(err, 'configuration poll failed'); });
    }, pollMs);
    this.poller.unref();
  }

  /** A failure while Redis is unreachable is the outage's to report (once); others are logged. */
  private warn(err: unknown, what: string): void {
    if (this.outage) this.outage.warn(this.log, err, what);
    else this.log.warn({ err }, what);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    if (this.subscriber) {
      this.subscriber.close();
      this.subscriber = null;
    }
  }

  private async announce(): Promise<void> {
    await this.redis.publish(this.keys.channel, 'config');
    await this.reload();
  }

  async put<K extends ConfigKind>(kind: K, mode: 'create' | 'update', entity: EntityByKind[K]): Promise<PutResult> {
    const field = UNIQUE_FIELD[kind];
    const unique = String((entity as unknown as Record<string, unknown>)[field] ?? '');
    const r = await this.redis.configPut(
      this.keys.config(kind), this.keys.configUnique(kind), this.keys.configVersion,
      mode, entity.id, JSON.stringify(entity), unique, field,
    );
    if (r === ScriptCode.EXISTS) return 'exists';
    if (r === ScriptCode.NOT_FOUND) return 'not_found';
    if (r === ScriptCode.DUPLICATE) return 'duplicate';
    await this.announce();
    return 'ok';
  }

  async delete(kind: ConfigKind, id: string): Promise<boolean> {
    const r = await this.redis.configDelete(
      this.keys.config(kind), this.keys.configUnique(kind), this.keys.configVersion, id, UNIQUE_FIELD[kind],
    );
    if (r === ScriptCode.NOT_FOUND) return false;
    await this.announce();
    return true;
  }

  /** Sets the manual clock for every process. */
  async setClock(ms: number): Promise<void> {
    const seq = await this.redis.incr(this.keys.clockSeq);
    await this.redis.set(this.keys.clock, `${seq}:${ms}`);
    this.applyClock(`${seq}:${ms}`);
    await this.redis.publish(this.keys.channel, 'clock');
  }
}
