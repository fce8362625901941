/**
 * What an erasure removes of a user outside their partition (src/engine/erasure/erase.ts): their
 * places in every run (and breakdown group, and league cohort) of the tenant's boards, the cohort
 * they joined in each league tier and their outcome there, among the winners of finished
 * runs, in the streak rankings, the webhooks' notes and queues, the live topics, and the keys
 * scoped to them. Answers the keys deleted, the members and fields removed, and every key
 * changed (the snapshots' copies of those are made again).
 *
 * A new user of the same id may have been made since the erasure (their first event after its
 * script): a place ordered after the erasure's log entry (a ranking's sequences, the streak
 * rankings' standing) is theirs, and stays, with the history they made; only the rank changes of
 * before the erasure leave its history.
 */
import { GROUP, unpackDelivery } from '../webhooks/queue.js';
import { leagueTopicId, leagueUserTopic, userTopic } from '../../domain/live/topics.js';
import { announce, scanKeys, type RedisClient } from '../../redis/client.js';
import { globEscaped, type LeaderboardKeys } from '../../redis/keys.js';
import { cohortUserField } from '../../redis/leagues.js';
import { rewriteWinners, winnersOf } from '../../redis/board-state.js';
import { winnersWithout } from '../../domain/leaderboards/winners.js';
import * as streakLeave from '../../redis/scripts/streakLeave.js';
import { streakStanding } from '../streaks/rankings.js';
import { userKeysOf } from '../keys/user-keys.js';
import { compareStreamIds } from '../../model/log.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store'>;

/** The erasure as its pass compares what it finds with it: its log entry's id, and when it was asked for (ms). */
export interface ErasedSince {
  seq: string;
  at: number;
}

/** Whether a place's log entry id (a ranking's sequences field, a standing's) is of an event after the erasure: a new user's. */
function later(held: string | null | undefined, since: ErasedSince): boolean {
  return held != null && /^\d+-\d+$/.test(held) && compareStreamIds(held, since.seq) > 0;
}

/** The rank changes of before the erasure out of a history list (entries '<ms>|...', newest first); answers how many. */
async function pruneHistory(redis: RedisClient, history: string, since: ErasedSince): Promise<number> {
  let removed = 0;
  for (const entry of await redis.lrange(history, 0, -1)) {
    if (Number(entry.slice(0, entry.indexOf('|'))) < since.at) removed += await redis.lrem(history, 0, entry);
  }
  return removed;
}

export interface ElsewhereResult {
  keys: number;
  members: number;
  /** Every key deleted or changed. */
  touched: Set<string>;
}

async function* scanned(redis: RedisClient, pattern: string): AsyncGenerator<string> {
  for await (const batch of scanKeys(redis, pattern, 1000)) yield* batch;
}

/**
 * Every ranking of the tenant's boards that holds a key, found by any of its keys: a walk that
 * cannot miss one, since a ranking nobody is on any more (its last member left a breakdown group,
 * or a streak board pruned their lost streak) keeps their sequences field and history list.
 */
async function* everyRanking(deps: Deps, tenant: string): AsyncGenerator<LeaderboardKeys> {
  const seen = new Set<string>();
  for await (const key of scanned(deps.redis, deps.keys.boardKeysOfTenant(tenant))) {
    const run = deps.keys.rankingOfKey(key);
    if (run === null || seen.has(run.ranking)) continue;
    seen.add(run.ranking);
    yield run;
  }
}

/** Removes the user from the tenant's board runs and the winners of its finished runs. */
async function fromBoards(deps: Deps, tenant: string, userId: string, since: ErasedSince, r: ElsewhereResult): Promise<void> {
  const { redis, keys } = deps;
  for await (const run of everyRanking(deps, tenant)) {
    const held = await redis.hget(run.sequences, userId);
    if (later(held, since)) {
      const pruned = await pruneHistory(redis, run.history(userId), since);
      if (pruned > 0) { r.members += pruned; r.touched.add(run.history(userId)); }
      continue;
    }
    // The request took the user out of the runs not final yet (src/engine/erasure/open-runs.ts),
    // leaving its mark: the snapshots' copies of that ranking are made again too.
    if (held !== null) r.touched.add(run.ranking).add(run.members).add(run.expiry);
    const member = await redis.hget(run.members, userId);
    if (member !== null && (await redis.zrem(run.ranking, member)) > 0) {
      await redis.incr(run.falls);
      r.members++;
      r.touched.add(run.ranking);
    }
    for (const hash of [run.members, run.sequences, run.reported, run.live]) {
      if ((await redis.hdel(hash, userId)) > 0) { r.members++; r.touched.add(hash); }
    }
    if ((await redis.zrem(run.expiry, userId)) > 0) { r.members++; r.touched.add(run.expiry); }
    for (const own of [run.history(userId), run.awards(userId)]) {
      if ((await redis.del(own)) > 0) { r.keys++; r.touched.add(own); }
    }
  }
  // A league's tiers name the cohort each user joined (their cohorts' rankings are runs above; a
  // cohort an early joiner was moved out of by an outcome, which may rank nobody now, keeps their
  // mark and history: src/engine/leaderboards/league-relocate.ts).
  for await (const tier of scanned(redis, `${keys.prefix}:{lb:${globEscaped(tenant)}:*}:c`)) {
    const n = await redis.hget(tier, cohortUserField(userId));
    if (n === null) continue;
    const cohort = keys.runOfMembers(tier.replace(/:t(\d+)\}:c$/, `:c$1.${n}}:m`));
    // A seat a new user of the id took since the erasure.
    if (cohort !== null && later(await redis.hget(cohort.sequences, userId), since)) continue;
    if (cohort !== null) {
      if ((await redis.hdel(cohort.sequences, userId)) > 0) { r.members++; r.touched.add(cohort.sequences); }
      for (const own of [cohort.history(userId), cohort.awards(userId)]) {
        if ((await redis.del(own)) > 0) { r.keys++; r.touched.add(own); }
      }
    }
    if ((await redis.hdel(tier, cohortUserField(userId))) > 0) { r.members++; r.touched.add(tier); }
  }
  // A final run's cohorts name each user's outcome (the counts of those who moved stay).
  for await (const outcome of scanned(redis, `${keys.prefix}:{lb:${globEscaped(tenant)}:*}:o`)) {
    if ((await redis.hdel(outcome, cohortUserField(userId))) > 0) { r.members++; r.touched.add(outcome); }
  }
  for await (const state of scanned(redis, `${keys.prefix}:{lbf:${globEscaped(tenant)}:*}:state`)) {
    for (const { run, group, winners } of winnersOf(await redis.hgetall(state))) {
      const kept = winnersWithout(winners, userId);
      if (kept === null) continue;
      await rewriteWinners(redis, state, run, group, kept);
      r.members++;
      r.touched.add(state);
    }
  }
  // The users noted for the rank changes of uncapped runs (src/engine/webhooks/rank-notes.ts).
  for await (const noted of scanned(redis, `${keys.prefix}:{lbf:${globEscaped(tenant)}:*}:rn:*`)) {
    if ((await redis.zrem(noted, userId)) > 0) { r.members++; r.touched.add(noted); }
  }
}

/** Removes the user from the tenant's streak rankings, pauses and the webhooks' notes. */
async function fromStreaks(deps: Deps, tenant: string, userId: string, since: ErasedSince, r: ElsewhereResult): Promise<void> {
  const { redis, keys } = deps;
  const st = keys.streakRankings(tenant);
  // A new user of the id ranked since the erasure keeps their standing.
  const standing = await streakStanding(deps, tenant, userId);
  if (later(standing?.seq, since)) return;
  // The request took them out of the rankings, leaving the standing's mark: the snapshots'
  // copies of the rankings are made again too.
  if (standing !== null) r.touched.add(st.active).add(st.longest).add(st.expiry);
  // Out of the rankings as an exclusion takes them (lua/streakLeave-4.lua), then the standing gone.
  const removed = await streakLeave.run(redis, st, userId, '');
  if (removed > 0) { r.members += removed; r.touched.add(st.active).add(st.longest).add(st.expiry); }
  if ((await redis.hdel(st.standing, userId)) > 0) { r.members++; r.touched.add(st.standing); }
  const pauses = await redis.hgetall(st.pauses);
  const theirs = Object.entries(pauses).filter(([, v]) => (JSON.parse(v) as { userId?: string }).userId === userId).map(([id]) => id);
  if (theirs.length > 0) { await redis.hdel(st.pauses, ...theirs); r.members += theirs.length; r.touched.add(st.pauses); }
  const fz = keys.streakFreezes(tenant);
  for (const [key, remove] of [[keys.streakLosses(tenant), 'zrem'], [fz.due, 'zrem'], [fz.seen, 'hdel']] as const) {
    if ((await redis[remove](key, userId)) > 0) { r.members++; r.touched.add(key); }
  }
}

/** The deliveries about the user waiting in the endpoints' queues. */
async function fromWebhookQueues(deps: Deps, tenant: string, userId: string, r: ElsewhereResult): Promise<void> {
  const { redis, keys } = deps;
  const marker = JSON.stringify(userId);
  for (const endpointId of await redis.smembers(keys.webhookQueues)) {
    const queue = keys.webhookQueue(endpointId).queue;
    let from = '-';
    for (;;) {
      const entries = (await redis.xrange(queue, from, '+', 'COUNT', 500)) as [string, string[]][];
      const theirs: string[] = [];
      for (const [id, fields] of entries) {
        const packed = fields[1] ?? '';
        if (!packed.includes(marker)) continue;
        const d = unpackDelivery(id, packed);
        if (d.tenant === tenant && d.userId === userId) theirs.push(id);
      }
      if (theirs.length > 0) {
        // A claim of a sender drops with the entry: its acknowledgement then finds nothing.
        await redis.xack(queue, GROUP, ...theirs).catch(() => 0);
        r.members += await redis.xdel(queue, ...theirs);
        r.touched.add(queue);
      }
      if (entries.length < 500) break;
      from = `(${entries[entries.length - 1][0]}`;
    }
  }
}

/** The user's live topics (their own, and their league cohorts'), their holds, and the board topics' recent messages naming them. */
async function fromLive(deps: Deps, tenant: string, userId: string, r: ElsewhereResult): Promise<void> {
  const { redis, keys } = deps;
  const leagues = [...deps.store.current.leaderboards.values()].filter((lb) => lb.league).map((lb) => lb.key);
  const own = [userTopic(userId), ...leagues.flatMap((key) => [leagueTopicId(key, userId), leagueUserTopic(key, userId)])];
  const holds = keys.live.wanted;
  for (const name of own) {
    const topic = keys.liveTopic(tenant, name);
    for (const key of [topic.seq, topic.history, topic.want]) if ((await redis.del(key)) > 0) { r.keys++; r.touched.add(key); }
    // The clock's events, marked once each, go to a user's own topic only.
    if (name === userTopic(userId)) {
      for await (const key of scanned(redis, `${globEscaped(topic.channel)}:o:*`)) { r.keys += await redis.del(key); r.touched.add(key); }
    }
    let cursor = '0';
    do {
      const [next, flat] = await redis.zscan(holds, cursor, 'MATCH', `*|${globEscaped(tenant)}|${globEscaped(name)}`, 'COUNT', 1000);
      cursor = next;
      for (let i = 0; i < flat.length; i += 2) { r.members += await redis.zrem(holds, flat[i]); r.touched.add(holds); }
    } while (cursor !== '0');
  }
  // The api processes that still hold one of the topics drop it, and what they wrote of it since
  // (src/engine/live/fanout.ts drop): otherwise they would say it is wanted again until their
  // sockets let it go.
  await announce(redis, keys.live.dropped, JSON.stringify({ t: tenant, topics: own }));
  const marker = JSON.stringify(userId);
  for await (const history of scanned(redis, `${keys.prefix}:{lv:${globEscaped(tenant)}:*}:*:h`)) {
    for (const message of await redis.lrange(history, 0, -1)) {
      if (message.includes(marker)) { r.members += await redis.lrem(history, 0, message); r.touched.add(history); }
    }
  }
}

/** The keys scoped to the user (and their rate-limit buckets). */
async function scopedKeys(deps: Deps, tenant: string, userId: string, r: ElsewhereResult): Promise<void> {
  const { redis, keys } = deps;
  for await (const { record, id } of userKeysOf(deps, tenant, userId)) {
    r.keys += await redis.del(record);
    r.keys += await redis.del(keys.apiKey(id).bucket);
    r.touched.add(record);
  }
}

export async function eraseElsewhere(deps: Deps, tenant: string, userId: string, since: ErasedSince): Promise<ElsewhereResult> {
  const r: ElsewhereResult = { keys: 0, members: 0, touched: new Set() };
  await fromBoards(deps, tenant, userId, since, r);
  await fromStreaks(deps, tenant, userId, since, r);
  await fromWebhookQueues(deps, tenant, userId, r);
  await fromLive(deps, tenant, userId, r);
  await scopedKeys(deps, tenant, userId, r);
  return r;
}
