/**
 * Configuration: the source of truth lives in Redis under `{cfg}` (one hash per kind, id -> JSON,
 * with a unique index), a version counter is bumped by every write, and every process keeps an
 * immutable in-memory snapshot that it swaps when the version moves (pub/sub, with a polling
 * safety net). A request reads one snapshot from start to end, so it never sees half a change.
 */
import type { Logger } from 'pino';
import { announce, subscribe, type RedisClient, type Subscription } from '../redis/client.js';
import type { RedisOutage } from '../redis/outage.js';
import type { Keys } from '../redis/keys.js';
import type { Clock } from '../lib/clock.js';
import { CONFIG_KINDS, UNIQUE_FIELD, type ConfigKind, type EntityByKind } from '../model/entities.js';
import { emptyRaw } from '../model/snapshot.js';
import { Configuration } from './configuration.js';
import { awaitFollowers, recordApplied, type Applied } from './read-your-writes.js';
import * as configDelete from '../redis/scripts/configDelete.js';
import * as configPut from '../redis/scripts/configPut.js';

export type PutResult = 'ok' | 'exists' | 'not_found' | 'duplicate';

/** An entity to store with its kind. */
export type KindAndEntity = { [K in ConfigKind]: { kind: K; entity: EntityByKind[K] } }[ConfigKind];

export class ConfigStore {
  private snapshot = new Configuration(0, emptyRaw());
  private readonly redis: RedisClient;
  private readonly keys: Keys;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly outage: RedisOutage | null;
  private readonly heartbeatMs: number;
  /** This api process's id once it follows (follow()); null in other processes. */
  private follower: string | null = null;
  private subscriber: Subscription | null = null;
  private poller: NodeJS.Timeout | null = null;
  private stopped = false;
  private reloading: Promise<void> = Promise.resolve();
  private clockSeq = 0;
  private readonly listeners: ((s: Configuration) => void)[] = [];
  private readonly restoredListeners: (() => void)[] = [];
  loaded = false;
  /** Whether a restore is rebuilding Redis (src/engine/durability/restore.ts): nothing is served meanwhile. */
  restoring = false;
  /**
   * Whether Redis came back without the installation this process served (a restart that kept
   * nothing): nothing is served, and no snapshot taken, until `laurel restore` rebuilds it.
   */
  lostData = false;
  /** Checks under way of a request connection just back (its 'ready' after a drop): see verifying. */
  private checks = 0;

  /**
   * Whether the request connection has just come back and this process has not yet checked that
   * Redis still holds the installation: nothing is served meanwhile, so that no request runs on a
   * Redis that came back empty before the check marks it (lostData). Its 'ready' is heard before any
   * request can use it.
   */
  get verifying(): boolean {
    return this.checks > 0;
  }

  /** Whether the request connection takes commands now (a command issued otherwise waits or fails). */
  get connected(): boolean {
    return this.redis.status === 'ready';
  }

  /** `heartbeatMs`: how often api processes beat (a write waits only for live ones, src/config/read-your-writes.ts). */
  constructor(redis: RedisClient, keys: Keys, clock: Clock, log: Logger, outage: RedisOutage | null = null, heartbeatMs = 1000) {
    this.redis = redis;
    this.heartbeatMs = heartbeatMs;
    this.outage = outage;
    this.keys = keys;
    this.clock = clock;
    this.log = log;
  }

  get current(): Configuration {
    return this.snapshot;
  }

  onChange(listener: (s: Configuration) => void): void {
    this.listeners.push(listener);
  }

  /** Called when a restore has rebuilt Redis (a restore's mark, or the mark of data lost, gone). */
  onRestored(listener: () => void): void {
    this.restoredListeners.push(listener);
  }

  /**
   * Reads the whole configuration (one slot, one pipeline) and swaps the snapshot. Reloads run one
   * after another, each reading after the previous one finished, so a caller that just wrote sees
   * its write; a snapshot never replaces a newer one.
   */
  reload(): Promise<void> {
    const run = async () => {
      const pipeline = this.redis.pipeline();
      pipeline.get(this.keys.configVersion);
      for (const kind of CONFIG_KINDS) pipeline.hgetall(this.keys.config(kind));
      pipeline.get(this.keys.clock);
      pipeline.exists(this.keys.restoring);
      pipeline.exists(this.keys.lostData);
      const results = (await pipeline.exec()) ?? [];
      for (const [err] of results) if (err) throw err;
      const version = Number(results[0][1] ?? 0);
      const raw = {} as Record<ConfigKind, Record<string, string>>;
      CONFIG_KINDS.forEach((kind, i) => { raw[kind] = results[i + 1][1] as Record<string, string>; });
      if (!this.loaded || version > this.snapshot.version) {
        this.snapshot = new Configuration(version, raw);
        for (const l of this.listeners) l(this.snapshot);
        // A write that waits for this process answers once this is recorded (it may time out instead).
        if (this.follower !== null) await recordApplied(this.redis, this.keys, 'configuration change', this.follower, version).catch(() => undefined);
      }
      if (this.applyClock(results[CONFIG_KINDS.length + 1][1] as string | null) && this.follower !== null) {
        await recordApplied(this.redis, this.keys, 'clock setting', this.follower, this.clockSeq).catch(() => undefined);
      }
      const wasDown = this.restoring || this.lostData;
      this.restoring = results[CONFIG_KINDS.length + 2][1] === 1;
      this.lostData = results[CONFIG_KINDS.length + 3][1] === 1;
      if (wasDown && !this.restoring && !this.lostData) for (const l of this.restoredListeners) l();
      this.loaded = true;
    };
    this.reloading = this.reloading.then(run, run);
    return this.reloading;
  }

  /**
   * The configuration as Redis holds it, read in one pipeline (one slot): its version and each
   * kind's entities, id to JSON (the workers copy it into Postgres: workers/config-copy.ts).
   */
  async stored(): Promise<{ version: number; entities: Record<ConfigKind, Record<string, string>> }> {
    const pipeline = this.redis.pipeline().get(this.keys.configVersion);
    for (const kind of CONFIG_KINDS) pipeline.hgetall(this.keys.config(kind));
    const results = (await pipeline.exec()) ?? [];
    for (const [err] of results) if (err) throw err;
    const entities = {} as Record<ConfigKind, Record<string, string>>;
    CONFIG_KINDS.forEach((kind, i) => { entities[kind] = results[i + 1][1] as Record<string, string>; });
    return { version: Number(results[0][1] ?? 0), entities };
  }

  /**
   * The manual clock travels as `<sequence>:<ms>`; an older setting never overrides a newer one.
   * Answers whether the setting was new.
   */
  private applyClock(raw: string | null): boolean {
    if (this.clock.mode !== 'manual' || raw === null) return false;
    const [seq, ms] = raw.split(':').map(Number);
    if (seq <= this.clockSeq) return false;
    this.clockSeq = seq;
    this.clock.set(ms);
    return true;
  }

  /**
   * This process serves requests as api process `id`: it records every version it loads and every
   * clock setting it applies, and writes made elsewhere wait for it (src/config/read-your-writes.ts).
   */
  async follow(id: string): Promise<void> {
    this.follower = id;
    await recordApplied(this.redis, this.keys, 'configuration change', id, this.snapshot.version);
    // A process on the system clock applies no setting: nothing waits for it.
    if (this.clock.mode === 'manual') await recordApplied(this.redis, this.keys, 'clock setting', id, this.clockSeq);
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
      this.check().catch((err) => { if (!this.stopped) this.warn(err, 'configuration poll failed'); });
    }, pollMs);
    this.poller.unref();
    // Every 'ready' from now on is a reconnection: checked at once, and nothing served until then.
    this.redis.on('ready', () => {
      if (this.stopped) return;
      this.checks++;
      this.check()
        .catch((err) => { if (!this.stopped) this.warn(err, 'configuration check after a reconnection failed'); })
        .finally(() => { this.checks--; });
    });
  }

  /** The configuration version in Redis: gone while this process served one (marked lost), or moved (reloaded). */
  private async check(): Promise<void> {
    const v = await this.redis.get(this.keys.configVersion);
    if (v === null && this.snapshot.version > 0 && !this.lostData) await this.markLost();
    if (Number(v ?? 0) !== this.snapshot.version) await this.reload();
  }

  /**
   * Redis has no configuration version while this process served one: it came back without the
   * installation (a restart that kept nothing). Marked for every process at once, unless a restore
   * is under way (it deletes the installation first, then rebuilds it): serving on would answer as if
   * every user were new, replays of idempotency keys as new events, and the workers' next snapshot
   * would replace what Postgres keeps.
   */
  private async markLost(): Promise<void> {
    const marked = await this.redis.eval(
      `if redis.call('EXISTS', KEYS[1]) == 0 and redis.call('EXISTS', KEYS[2]) == 0 then
         return redis.call('SET', KEYS[3], ARGV[1], 'NX') and 1 or 0
       end
       return 0`,
      3, this.keys.configVersion, this.keys.restoring, this.keys.lostData, String(Date.now()),
    );
    if (marked !== 1) return;
    this.log.error({ prefix: this.keys.prefix },
      'Redis came back without the installation (it kept nothing): nothing is served until `laurel restore` rebuilds it from Postgres');
    await announce(this.redis, this.keys.channel, 'lost');
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

  /** Tells every process, and answers once every live api process has the change (src/config/read-your-writes.ts). */
  private async sayChanged(): Promise<void> {
    await announce(this.redis, this.keys.channel, 'config');
    await this.reload();
    await this.awaitFollowers('configuration change', this.snapshot.version);
  }

  /** Waits until every live api process has applied `version` of `what` (src/config/read-your-writes.ts). */
  private async awaitFollowers(what: Applied, version: number): Promise<void> {
    await awaitFollowers(this.redis, this.keys, this.log, what, version, this.heartbeatMs)
      .catch((err: unknown) => this.warn(err, `could not read which api processes have the ${what}`));
  }

  private configKeys(kind: ConfigKind): configPut.Keys {
    return { entities: this.keys.config(kind), uniques: this.keys.configUnique(kind), version: this.keys.configVersion };
  }

  async put<K extends ConfigKind>(kind: K, mode: 'create' | 'update', entity: EntityByKind[K]): Promise<PutResult> {
    const field = UNIQUE_FIELD[kind];
    const unique = String((entity as unknown as Record<string, unknown>)[field] ?? '');
    const r = await configPut.run(this.redis, this.configKeys(kind), { mode, id: entity.id, json: JSON.stringify(entity), unique, uniqueField: field });
    if (r !== 'ok') return r;
    await this.sayChanged();
    return 'ok';
  }

  /**
   * Creates the entities one after another, all or none: when one is refused, those this call
   * stored are deleted again, the last first, and the answer says which one was refused and why
   * (null when all were stored). Not atomic: until the undo, readers may see the first ones.
   */
  async createAll(entries: KindAndEntity[]): Promise<{ index: number; result: PutResult } | null> {
    for (let index = 0; index < entries.length; index++) {
      const result = await this.put(entries[index].kind, 'create', entries[index].entity as never);
      if (result === 'ok') continue;
      for (let j = index - 1; j >= 0; j--) await this.delete(entries[j].kind, entries[j].entity.id);
      return { index, result };
    }
    return null;
  }

  async delete(kind: ConfigKind, id: string): Promise<boolean> {
    if (!await configDelete.run(this.redis, this.configKeys(kind), id, UNIQUE_FIELD[kind])) return false;
    await this.sayChanged();
    return true;
  }

  /**
   * Sets the manual clock for every process, and answers once every live api process runs on it.
   * The sequence and the setting are written at once: two settings made together reach every
   * process in the order of their sequences.
   */
  async setClock(ms: number): Promise<void> {
    const seq = Number(await this.redis.eval(
      "local seq = redis.call('INCR', KEYS[1]) redis.call('SET', KEYS[2], seq .. ':' .. ARGV[1]) return seq",
      2, this.keys.clockSeq, this.keys.clock, String(ms),
    ));
    if (this.applyClock(`${seq}:${ms}`) && this.follower !== null) {
      await recordApplied(this.redis, this.keys, 'clock setting', this.follower, seq);
    }
    await announce(this.redis, this.keys.channel, 'clock');
    await this.awaitFollowers('clock setting', seq);
  }
}
