/**
 * `laurel restore`: rebuilds an empty Redis from Postgres. The configuration from its copy; every
 * user's keys and the other keys (leaderboards, streak rankings, points totals) from the latest
 * snapshot (src/engine/durability/snapshot.ts); the keys that sum over users worked out from the
 * users; then the event log archived after the snapshot replayed through the engine, in log order,
 * each entry at the time it was made: an entry a user's state already includes (up to the position
 * read with it) is not replayed. A replayed entry's placements keep its original log entry id, so
 * one the restored leaderboards hold already (they were read after the users) changes nothing.
 * Last, the streak rankings take again every entry from the snapshot on, in log order (absolute
 * values: the latest is what stays), and so do the notifications due indexes (ZADD GT). The
 * leaderboard runs the workers finalised after the snapshot come back from their `finalised`
 * entries, with the time and winners the pass wrote (src/engine/leaderboards/finalised.ts), and a
 * league's users move as that pass moved them, each cohort's decision taken from its `outcome`
 * entry (src/engine/leaderboards/league-final.ts); the
 * leagues' cohorts are seated as the joins' own entries say (src/engine/durability/league-seats.ts). The
 * batch events accepted and not yet applied are queued again for the workers
 * (src/engine/durability/batches-from-log.ts). The analytics' active users' sketches come back
 * from the snapshot, and take again the users of the entries from it on (PFADD: a user counted
 * already changes nothing; src/engine/analytics/sketches.ts). An erased user's lines are redacted
 * in the archive and their snapshot rows deleted (src/engine/erasure/pass.ts): nothing
 * brings them back; nor a deleted tenant's users, once the log holds its erasure's entry (their
 * entries, snapshot rows and keys skipped; its erasure pending again, for the workers to finish
 * or finish again). The corrections an
 * operator made (a `voided` event, a `revoked` completion, a user `excluded` from the rankings and
 * `included` again) are made again from their entries
 * (src/engine/fairplay/); the streak rankings taken again skip an excluded user's events (their
 * entries' `ex`).
 *
 * What the archive does not hold is not restored: the entries that had not reached Postgres when
 * Redis lost them (the drain's lag, about a second). Restoring uses the configuration as copied
 * last, also for the replayed entries.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import type { StreakPreferences } from '../../domain/streaks/preferences.js';
import { prepareIdentification, type UpsertedUser } from '../../domain/users.js';
import { CONFIG_KINDS, UNIQUE_FIELD, type ConfigKind } from '../../model/entities.js';
import { ANNIVERSARY_FIELD, COMPLETION_PREFIX, NO_ANNIVERSARY, POINTS_TOTAL_PREFIX, TIME_DUE_PREFIX } from '../../model/fields.js';
import { earliestStart } from '../../domain/anniversaries.js';
import { activityOf, compareStreamIds, nextStreamId, operationEntry, type CohortDecision, type FinalisedRun, type LogBody } from '../../model/log.js';
import { LogArchive } from '../../postgres/log-archive.js';
import { SnapshotStore } from '../../postgres/snapshots.js';
import { bucketOfKey, layoutChoice, restoreBucket } from '../../redis/run-members.js';
import { announce, scanKeys, type RedisClient } from '../../redis/client.js';
import type { Keys } from '../../redis/keys.js';
import { completeAchievement } from '../achievements/complete.js';
import { EventRecorder } from '../event/record.js';
import { rankStreaks, STREAK_OPERATIONS, type Drained } from './streak-rankings-from-log.js';
import { logSubscribers, plannedWebhooks } from '../webhooks/plan.js';
import { queueAfterRestore } from '../webhooks/queue.js';
import { recordedIds } from '../../postgres/webhooks/sent.js';
import { webhookDeliveryId } from '../../postgres/webhooks/deliveries.js';
import type { ParsedEntry } from '../../domain/webhooks/events.js';
import { anyDue, dueWanted, noteDue, noteEntry, NotedDays, type PartitionDue } from '../notifications/due-index.js';
import type { Services } from '../deps.js';
import { accrueTime } from '../points/time-awards.js';
import { identifyUser } from '../users/identify.js';
import { updatePreferences } from '../users/preferences.js';
import { addPause, grantFreezes, removePause, resetStreak, restoreStreak } from '../streaks/operations.js';
import { writeFinalised } from '../leaderboards/finalised.js';
import { replayCohortDecision, replayLeagueFinalised } from '../leaderboards/league-final.js';
import { queueBatchesAgain, restoreItemKey, type QueuedChunks } from './batches-from-log.js';
import { LeagueSeats } from './league-seats.js';
import { ERASED_KIND, REDACTED_KIND } from '../../domain/erasure.js';
import { erasedTenantOf, tenantOfBody } from '../../domain/tenant-erasure.js';
import { startTenantErasureAgain } from '../erasure/tenant.js';
import { emptyRollup, rollEntry } from '../../domain/analytics-rollup.js';
import { noteActiveUsers } from '../analytics/active-users.js';
import { isSketch, keepRestoredSketch } from '../analytics/sketches.js';
import * as backfillAchievement from '../../redis/scripts/backfillAchievement.js';
import { applyVoid, targetOfVoided } from '../fairplay/void.js';
import { revokeCompletion } from '../fairplay/revoke.js';
import { excludeUser, includeUser } from '../fairplay/exclude.js';
import { ANNIVERSARIES_DUE, TIME_AWARDS_DUE } from '../../redis/due-sets.js';
import { LaurelError } from '../../lib/errors.js';

export class RestoreError extends LaurelError {
  constructor(message: string) { super('restore_refused', message); }
}

export interface RestoreResult {
  /** The snapshot restored (null: none; everything came from the log). */
  snapshot: number | null;
  config: number;
  users: number;
  keys: number;
  /** Log entries replayed, and those a user's state already held. */
  replayed: number;
  skipped: number;
  /** Replayed entries the engine refused (their reason is logged). */
  failed: number;
  ms: number;
}

/** How far before a snapshot's `since` the log is read again: node's and Redis's clocks may differ a little. */
const CLOCK_MARGIN_MS = 5000;

/**
 * Whether Redis holds any key of the installation's data: not what running processes write whatever
 * Redis holds (their heartbeats, the marks, the workers' queues, where the drain's clock stood).
 */
async function redisHoldsData(redis: RedisClient, keys: Keys): Promise<boolean> {
  const marks = new Set([keys.apiProcesses, keys.apiConfigVersions, keys.apiClockSettings, keys.lostData, keys.restoring, keys.drainedClock]);
  const isData = (key: string) => !marks.has(key) && !key.startsWith(`${keys.queuePrefix}:`);
  for await (const batch of scanKeys(redis, `${keys.prefix}:*`, 1000)) if (batch.some(isData)) return true;
  return false;
}

/** Deletes every key of the installation. */
async function deleteInstallation(redis: RedisClient, prefix: string): Promise<void> {
  for await (const batch of scanKeys(redis, `${prefix}:*`, 1000)) await Promise.all(batch.map((k) => redis.unlink(k)));
}

interface Entry {
  id: string;
  partition: number;
  kind: string;
  body: string;
}

/** The archived entries of the log from `fromMs` on, in log order (by id, then partition). */
async function archivedEntries(pool: pg.Pool, prefix: string, fromMs: number): Promise<Entry[]> {
  const { rows } = await pool.query(
    'SELECT partition, lines FROM laurel_log WHERE prefix = $1 AND last_at >= to_timestamp($2 / 1000.0)', [prefix, fromMs],
  );
  const entries: Entry[] = [];
  for (const row of rows) {
    for (const line of (row.lines as string).split('\n')) {
      const tab = line.indexOf('\t');
      const tab2 = line.indexOf('\t', tab + 1);
      const id = line.slice(0, tab);
      if (Number(id.slice(0, id.indexOf('-'))) < fromMs) continue;
      entries.push({ id, partition: Number(row.partition), kind: line.slice(tab + 1, tab2), body: line.slice(tab2 + 1) });
    }
  }
  return entries.sort((a, b) => compareStreamIds(a.id, b.id) || a.partition - b.partition);
}

/** The kinds of entries that call for webhooks (src/domain/webhooks/events.ts mayNotify). */
const WEBHOOK_KINDS = new Set(['event', 'freezes', 'achievement', 'points', 'voided', 'revoked', 'excluded', 'included']);

/** The tenants a tenant's `erased` entry among `entries` names (src/domain/tenant-erasure.ts). */
function erasedTenants(entries: Entry[]): Set<string> {
  const gone = new Set<string>();
  for (const e of entries) {
    const tenant = erasedTenantOf(e.kind, e.body);
    if (tenant !== null) gone.add(tenant);
  }
  return gone;
}

export class Restore {
  private readonly svc: Services;
  private readonly pool: pg.Pool;
  private readonly log: Logger;
  private readonly recorder: EventRecorder;
  /** The batch chunks queued after the restore (queueBatchesAgain), before the replay. */
  private queued: QueuedChunks = new Set();

  /** `svc` runs on a manual clock: each entry is replayed at the time it was made. */
  constructor(svc: Services, pool: pg.Pool, log: Logger) {
    if (svc.clock.mode !== 'manual') throw new Error('a restore replays the log on a manual clock');
    this.svc = svc;
    this.pool = pool;
    this.log = log;
    this.recorder = new EventRecorder(svc);
  }

  async run(force: boolean): Promise<RestoreResult> {
    const started = Date.now();
    const { redis, keys, settings, store } = this.svc;
    const prefix = settings.prefix;
    if (await redisHoldsData(redis, keys)) {
      if (!force) throw new RestoreError(`Redis holds data of installation "${prefix}" already; restore refuses to overwrite it (--force deletes it first)`);
      await deleteInstallation(redis, prefix);
    }
    await redis.set(keys.restoring, String(Date.now()));
    await announce(redis, keys.channel, 'restore');
    const snapshots = new SnapshotStore(this.pool, prefix);
    const [snapshot = null, before = null] = await snapshots.latestTwo();
    const result: RestoreResult = {
      snapshot: snapshot?.id ?? null, config: await this.restoreConfig(), users: 0, keys: 0, replayed: 0, skipped: 0, failed: 0, ms: 0,
    };
    await store.reload();
    // Without a snapshot, the whole log. A user the latest one did not read again kept the row of
    // the one before; what the log archived of such a user after that one began, late (the drain
    // behind), is replayed too: the log is read from the snapshot before the latest.
    const fromMs = snapshot === null ? 0 : (before ?? snapshot).since - CLOCK_MARGIN_MS;
    const read = await archivedEntries(this.pool, prefix, fromMs);
    // A deleted tenant's erasure (src/domain/tenant-erasure.ts) brings back none of its entries,
    // users or keys: its entry is read with them, being later than any the snapshot holds.
    const gone = erasedTenants(read);
    const entries = gone.size === 0 ? read : read.filter((e) => !gone.has(tenantOfBody(e.body) ?? ''));
    const keptKey = (key: string) => gone.size === 0 || ![...gone].some((t) => key.includes(t));
    const positions = new Map<string, string>();
    if (snapshot !== null) {
      result.users = await this.restoreUsers(snapshots, positions, gone);
      const { buckets: bucketRows, whole } = await snapshots.runRows();
      const taken = layoutChoice(keys, bucketRows, whole, snapshot.id);
      for await (const all of snapshots.keys()) {
        const batch = all.filter((k) => keptKey(k.key) && taken(k.key));
        // A large run's users, kept by buckets (src/redis/run-members.ts): a bucket's thousands
        // of commands a few buckets at a time, not every bucket of the page at once.
        const buckets = batch.map((k) => [k, bucketOfKey(keys, k.key)] as const);
        await Promise.all(buckets.filter(([, b]) => b === null).map(async ([k]) => {
          await redis.call('RESTORE', k.key, '0', k.dump, 'REPLACE');
          if (isSketch(k.key)) await keepRestoredSketch(redis, k.key);
        }));
        const runs = buckets.filter(([, b]) => b !== null);
        for (let i = 0; i < runs.length; i += 4) {
          await Promise.all(runs.slice(i, i + 4).map(([k, b]) => restoreBucket(redis, b!.run, k.dump)));
        }
        result.keys += batch.length;
      }
    }
    this.queued = await queueBatchesAgain(this.svc, entries);
    // The leagues' tiers seated as the joins left them, before anything joins again.
    const seats = new LeagueSeats(this.svc, entries, positions);
    await seats.seatTiers();
    for (const entry of entries) {
      // A batch's items are queued again above; their events are replayed as any. An erasure's
      // entry and the erased user's redacted ones bring nobody back (src/domain/erasure.ts). A
      // league's seats are made from their entries (league-seats.ts).
      if (entry.kind === 'batch' || entry.kind === 'league' || entry.kind === ERASED_KIND || entry.kind === REDACTED_KIND) continue;
      const e = JSON.parse(entry.body) as LogBody;
      const position = positions.get(`${e.t}\u0000${e.u}`);
      if (position !== undefined && compareStreamIds(entry.id, position) <= 0) {
        result.skipped++;
        continue;
      }
      await seats.beforeReplay(entry.id);
      if (await this.replay(entry, e)) result.replayed++;
      else result.failed++;
    }
    await this.rankAgain(entries);
    await this.indexAgain(entries);
    await this.activeAgain(entries);
    await this.webhooksAgain(entries);
    await this.tenantErasuresAgain(read);
    // The replay's own log entries go (the archive holds the entries they repeat), but every log
    // keeps its last id, past every archived one: the position a later snapshot reads with a user.
    const archived = await new LogArchive(this.pool, prefix).cursors();
    for (let p = 0; p < keys.partitions; p++) {
      const log = keys.partitionLog(p);
      const last = archived.get(p);
      // Past the archive's last entry even if this Redis's clock is behind the one that wrote it.
      const id = last !== undefined && Number(last.slice(0, last.indexOf('-'))) >= Date.now() ? nextStreamId(last) : '*';
      await redis.xadd(log, id, 'restored', String(Date.now()));
      await redis.xtrim(log, 'MAXLEN', 0);
      await redis.del(keys.partitionLogCursor(p));
    }
    await redis.del(keys.restoring, keys.lostData);
    await announce(redis, keys.channel, 'restored');
    await store.reload();
    result.ms = Date.now() - started;
    return result;
  }

  /** The configuration as copied last (workers/config-copy.ts), at its version. Answers how many entities. */
  private async restoreConfig(): Promise<number> {
    const { redis, keys, settings } = this.svc;
    const { rows } = await this.pool.query(
      'SELECT kind, id, body::text AS body, version FROM laurel_config WHERE prefix = $1', [settings.prefix],
    );
    let version = 0;
    for (const kind of CONFIG_KINDS) {
      const mine = rows.filter((r) => r.kind === kind);
      if (mine.length === 0) continue;
      const unique = UNIQUE_FIELD[kind as ConfigKind];
      const pipeline = redis.pipeline();
      for (const r of mine) {
        pipeline.hset(keys.config(kind), r.id as string, r.body as string);
        if (unique !== '') pipeline.hset(keys.configUnique(kind), String((JSON.parse(r.body as string) as Record<string, unknown>)[unique]), r.id as string);
        version = Math.max(version, Number(r.version));
      }
      for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
    }
    if (version > 0) await redis.set(keys.configVersion, String(version));
    return rows.length;
  }

  /**
   * Every user's keys but a deleted tenant's (`gone`), and what sums over them: the partitions' user sets, completion counters and
   * points totals, the due sets of time triggers and of anniversaries. Notes each user's position
   * in `positions`.
   */
  private async restoreUsers(snapshots: SnapshotStore, positions: Map<string, string>, gone: Set<string>): Promise<number> {
    const { redis, keys } = this.svc;
    let users = 0;
    const completions = new Map<string, Map<string, number>>();
    const tenants = new Set<string>();
    for await (const all of snapshots.users()) {
      const batch = all.filter((u) => !gone.has(u.tenant));
      await Promise.all(batch.flatMap((u) => [...u.keys].map(([name, dump]) => redis.call('RESTORE', name, '0', dump, 'REPLACE'))));
      const hashes = await Promise.all(batch.map((u) => redis.hgetall(keys.forUser(u.tenant, u.userId).user)));
      await Promise.all(batch.map(async (u, i) => {
        positions.set(`${u.tenant}\u0000${u.userId}`, u.position);
        tenants.add(u.tenant);
        await redis.sadd(keys.partitionUsers(u.partition, u.tenant), u.userId);
        let due = Infinity;
        for (const [field, value] of Object.entries(hashes[i])) {
          if (field.startsWith(COMPLETION_PREFIX)) {
            const counters = keys.partitionCompletions(u.partition, u.tenant);
            let counts = completions.get(counters);
            if (counts === undefined) completions.set(counters, (counts = new Map()));
            const id = field.slice(COMPLETION_PREFIX.length);
            counts.set(id, (counts.get(id) ?? 0) + 1);
          } else if (field.startsWith(TIME_DUE_PREFIX)) due = Math.min(due, Number(value));
          else if (field === ANNIVERSARY_FIELD) {
            // Looked at when the day can have begun somewhere (the workers then read the user's zone).
            if (value !== NO_ANNIVERSARY) await ANNIVERSARIES_DUE.add(this.svc, u.partition, u.tenant, [u.userId], earliestStart(value));
          }
          else if (field.startsWith(POINTS_TOTAL_PREFIX)) {
            const total = keys.partitionPointsTotal(u.tenant, u.userId, field.slice(POINTS_TOTAL_PREFIX.length));
            await redis.hset(total.key, total.field, value);
          }
        }
        if (due !== Infinity) await TIME_AWARDS_DUE.add(this.svc, u.partition, u.tenant, [u.userId], due);
      }));
      users += batch.length;
    }
    for (const [counters, counts] of completions) {
      await redis.hset(counters, ...[...counts].flatMap(([id, n]) => [id, String(n)]));
    }
    // The tenants' statistics changed under every api process's cache (src/engine/achievements/completion-stats.ts).
    for (const tenant of tenants) await this.svc.stats.changed(tenant);
    return users;
  }

  /** Replays one entry at the time it was made; false when the engine refused it (logged). */
  private async replay(entry: Entry, e: LogBody): Promise<boolean> {
    const svc = this.svc;
    const tenant = e.t ?? '';
    const userId = e.u ?? '';
    // At the time it arrived: an event sent with `occurredAt` counts at `ts` again, the runs final
    // when it arrived left as they were.
    svc.clock.set(e.ra ?? e.ts ?? Number(entry.id.slice(0, entry.id.indexOf('-'))));
    try {
      const snapshot = svc.store.current;
      const fields = { ...(e.f ?? {}) } as Record<string, unknown>;
      if (entry.kind === 'event') {
        const metric = snapshot.metrics.get(e.m ?? '');
        if (metric === undefined) throw new Error(`metric ${e.m} is not configured`);
        const user = { id: userId, ...fields } as UpsertedUser;
        await this.recorder.record({
          tenant, metric, userId, ident: prepareIdentification(user, snapshot), value: Number(e.lc ?? e.v), replay: true, attributes: e.a,
          attributesJson: e.a === undefined ? '' : JSON.stringify(e.a), identificationJson: e.f === undefined ? '' : JSON.stringify(e.f),
          idempotencyKey: e.k ?? '', eventId: e.e, seq: entry.id, occurredAt: e.ra === undefined ? undefined : e.ts,
          batchItem: e.b, itemKey: restoreItemKey(this.queued, entry.partition, e.b, e.k), imported: e.im === 1,
        });
      } else if (entry.kind === 'user') {
        const user = { id: userId, ...fields } as UpsertedUser;
        await identifyUser(svc, tenant, 'upsert', userId, user, prepareIdentification(user, snapshot), entry.id);
      } else if (entry.kind === 'achievement') {
        const achievementId = String(fields.achievement);
        delete fields.achievement;
        const achievement = snapshot.achievements.get(achievementId);
        const plan = achievement === undefined ? null : snapshot.singlePlan(achievement);
        if (achievement === undefined || plan === null) throw new Error(`achievement ${achievementId} cannot be completed`);
        const user = { id: userId, ...fields } as UpsertedUser;
        await completeAchievement(svc, tenant, achievement, plan, user, prepareIdentification(user, snapshot), entry.id);
      } else if (entry.kind === 'points') {
        await accrueTime(svc, tenant, userId, entry.id);
      } else if (entry.kind === 'preferences') {
        await updatePreferences(
          svc, tenant, userId, (fields.notifications ?? {}) as Record<string, string[]>, (fields.streak ?? null) as StreakPreferences | null,
          fields.unsubscribed === true,
        );
      } else if (entry.kind === 'freezes' || entry.kind === 'restore' || entry.kind === 'reset' || entry.kind === 'pause') {
        await this.replayStreakOperation(entry.kind, tenant, userId, e);
      } else if (entry.kind === 'backfill') {
        await this.replayBackfill(tenant, userId, String(fields.achievement));
      } else if (entry.kind === 'voided') {
        const done = await applyVoid(svc, targetOfVoided(e));
        if (done === 'unknown_user') throw new Error('the user of a voided event does not exist');
      } else if (entry.kind === 'revoked') {
        await revokeCompletion(svc, tenant, userId, String(fields.achievement));
      } else if (entry.kind === 'excluded') {
        // Ordered by the original entry's id, as the user's replayed events are.
        if (await excludeUser(svc, tenant, userId, e.why ?? '', entry.id) === null) throw new Error('the excluded user does not exist');
      } else if (entry.kind === 'included') {
        await includeUser(svc, tenant, userId);
      } else if (entry.kind === 'outcome') {
        await replayCohortDecision(svc, JSON.parse(entry.body) as CohortDecision);
      } else if (entry.kind === 'finalised') {
        const run = JSON.parse(entry.body) as FinalisedRun;
        await replayLeagueFinalised(svc, run);
        await writeFinalised(svc, run);
      } else {
        throw new Error(`unknown entry kind ${entry.kind}`);
      }
      return true;
    } catch (err) {
      this.log.warn({ err, entry: entry.id, kind: entry.kind, user: userId }, 'restore: an entry of the log could not be replayed');
      return false;
    }
  }

  /** A streak operation an admin made: freezes granted, a streak restored or reset, a pause added or removed. */
  private async replayStreakOperation(kind: string, tenant: string, userId: string, e: LogBody): Promise<void> {
    const rule = this.svc.store.current.streak;
    if (rule === null) throw new Error('no streak is configured');
    if (kind === 'freezes') await grantFreezes(this.svc, tenant, userId, Number(e.n), rule);
    else if (kind === 'restore') await restoreStreak(this.svc, tenant, userId, rule);
    else if (kind === 'reset') await resetStreak(this.svc, tenant, userId, rule);
    else if (e.op === 'add') await addPause(this.svc, tenant, userId, String(e.start), String(e.end), rule, e.id);
    else await removePause(this.svc, tenant, String(e.id));
  }

  /** A silent completion of the achievements backfill (workers/achievements.ts). */
  private async replayBackfill(tenant: string, userId: string, achievementId: string): Promise<void> {
    const { redis, keys, store, clock } = this.svc;
    const a = store.current.achievements.get(achievementId);
    const plan = a === undefined ? null : store.current.singlePlan(a);
    if (a === undefined || plan === null) throw new Error(`achievement ${achievementId} cannot be completed`);
    const u = keys.forUser(tenant, userId);
    const now = clock.now();
    await backfillAchievement.run(redis, {
      user: u.user, userMetric: a.metricId === null ? u.user : keys.userMetric(u, a.metricId), completions: u.completions, log: u.log,
    }, { now: new Date(now).toISOString(), plan, entry: operationEntry(tenant, userId, now, { f: { achievement: a.id } }) });
  }

  /**
   * The notifications due indexes note again the events from the snapshot on (ZADD GT: what the
   * snapshot held already changes nothing).
   */
  private async indexAgain(entries: Entry[]): Promise<void> {
    const snapshot = this.svc.store.current;
    const wanted = dueWanted(snapshot);
    if (!anyDue(wanted)) return;
    const due = new Map<number, PartitionDue>();
    // A user's events of one day call for the same absence and recap: noted once.
    const noted = { written: new NotedDays(), pass: new NotedDays() };
    for (const entry of entries) {
      if (entry.kind !== 'event') continue;
      const e = JSON.parse(entry.body) as LogBody;
      const activity = activityOf(e);
      if (activity === null || e.t === undefined || e.u === undefined) continue;
      const partition = this.svc.keys.partitionOf(e.t, e.u);
      const members: PartitionDue = due.get(partition) ?? [];
      due.set(partition, members);
      noteEntry(snapshot, wanted, activity, members, noted);
    }
    for (const [partition, members] of due) await noteDue(this.svc, partition, members);
  }

  /** The analytics' active users of the entries from the snapshot on, added to their days' sketches. */
  private async activeAgain(entries: Entry[]): Promise<void> {
    let r = emptyRollup();
    let n = 0;
    for (const entry of entries) {
      if (entry.kind !== 'event' && entry.kind !== 'achievement') continue;
      rollEntry(r, entry.kind, JSON.parse(entry.body) as LogBody, null);
      if (++n % 10_000 === 0) {
        await noteActiveUsers(this.svc, r);
        r = emptyRollup();
      }
    }
    await noteActiveUsers(this.svc, r);
  }

  /**
   * The webhooks taken again from the entries from the snapshot on, while an endpoint subscribes:
   * the notes (losses, freeze checks, points.changed windows; written again, a note changes
   * nothing, and a delivery recorded already is not recorded twice: its id names its occasion),
   * and the deliveries due now, queued again past the marks the snapshot's queues hold, none that
   * Postgres records as attempted (src/engine/webhooks/queue.ts queueAfterRestore).
   */
  private async webhooksAgain(entries: Entry[]): Promise<void> {
    const { types } = logSubscribers(this.svc.store.current);
    if (types.size === 0) return;
    const parsed: ParsedEntry[] = [];
    for (const entry of entries) {
      if (WEBHOOK_KINDS.has(entry.kind)) parsed.push({ id: entry.id, kind: entry.kind, e: JSON.parse(entry.body) as LogBody });
    }
    const deliveries = await plannedWebhooks(this.svc, parsed, this.svc.clock.now());
    const prefix = this.svc.settings.prefix;
    await queueAfterRestore(this.svc, (endpointId, ids) => recordedIds(this.pool, prefix, endpointId, ids), deliveries, webhookDeliveryId);
  }

  /**
   * The streak rankings take again the entries from the snapshot on, in log order: phase 2 may not
   * have written them yet when the snapshot read the rankings.
   */
  /**
   * The deleted tenants' erasures whose entries it read, pending again (their records were in the
   * Redis lost): the workers' pass, which any may run again, finishes each
   * (src/engine/erasure/tenant-pass.ts). A partition whose entry it did not read waits for none.
   */
  private async tenantErasuresAgain(read: Entry[]): Promise<void> {
    const { keys } = this.svc;
    const found = new Map<string, { tenant: string; at: number; ids: string[] }>();
    for (const entry of read) {
      const tenant = erasedTenantOf(entry.kind, entry.body);
      if (tenant === null) continue;
      const e = JSON.parse(entry.body) as { x: string; ts: number };
      let erasure = found.get(e.x);
      if (erasure === undefined) found.set(e.x, (erasure = { tenant, at: e.ts, ids: Array<string>(keys.partitions).fill('0-0') }));
      erasure.ids[entry.partition] = entry.id;
    }
    for (const [id, { tenant, at, ids }] of found) {
      await startTenantErasureAgain(this.svc, id, tenant, at, ids);
    }
  }

  private async rankAgain(entries: Entry[]): Promise<void> {
    const consumed: Drained[] = [];
    for (const entry of entries) {
      const e = JSON.parse(entry.body) as LogBody;
      const operation = STREAK_OPERATIONS.has(entry.kind);
      if (e.sx !== undefined || operation) consumed.push({ id: entry.id, kind: entry.kind, e });
    }
    await rankStreaks(this.svc, consumed);
  }
}
