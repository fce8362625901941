/**
 * Redis connections: one client for a single Redis (REDIS_URL) or a Cluster (REDIS_CLUSTER_NODES).
 * Start-up probes first, without retries, so an unreachable Redis fails fast with a clear message.
 */
import { Redis, Cluster, type RedisOptions, type ClusterOptions } from 'ioredis';
import keySlot from 'cluster-key-slot';
import type { Settings } from '../lib/settings.js';
import { LaurelError } from '../lib/errors.js';

export type RedisClient = Redis | Cluster;

export class RedisUnavailableError extends LaurelError {
  constructor(message: string) { super('redis_unreachable', message); }
}

function where(settings: Settings): string {
  return settings.redisClusterNodes.length > 0
    ? `the Redis Cluster at ${settings.redisClusterNodes.map((n) => `${n.host}:${n.port}`).join(', ')}`
    : `Redis at ${redact(settings.redisUrl)}`;
}

function redact(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

export interface ClientOptions {
  /** BullMQ workers need `null` (block forever); the request path wants a bounded number. */
  maxRetriesPerRequest?: number | null;
  connectionName?: string;
  /**
   * Commands fail at once while the connection is down (no offline queue), so a request answers
   * 503 instead of waiting for Redis to come back (a Cluster's offline queue waits without end).
   * A command in flight when the connection drops fails too, and is never sent again: Redis may
   * have run it already (its reply was lost), and an event sent again would count twice. The
   * client is then created unconnected: `await client.connect()` before using it.
   */
  failFast?: boolean;
  /** A Cluster client that takes SSUBSCRIBE: one subscriber connection per primary (ioredis `shardedSubscribers`). */
  shardedSubscribers?: boolean;
}

/** Longest wait between two reconnection attempts. */
export const MAX_RETRY_DELAY_MS = 2000;

/**
 * Waits between reconnection attempts: 100 ms doubling up to MAX_RETRY_DELAY_MS, and never giving
 * up. ioredis's own Cluster strategy (100 ms + 2 ms per attempt) retries ten times a second for
 * minutes while every node is down.
 */
export function retryDelay(times: number): number {
  return Math.min(100 * 2 ** Math.min(Math.max(times - 1, 0), 5), MAX_RETRY_DELAY_MS);
}

export function createClient(settings: Settings, opts: ClientOptions = {}): RedisClient {
  const failFast = opts.failFast === true;
  const redisOptions: RedisOptions = {
    maxRetriesPerRequest: opts.maxRetriesPerRequest === undefined ? 2 : opts.maxRetriesPerRequest,
    connectionName: opts.connectionName,
    enableAutoPipelining: false,
    retryStrategy: retryDelay,
    disableClientInfo: true,
  };
  if (failFast) {
    // ioredis keeps the commands in flight when a connection drops and writes them again once it
    // is back, unless `maxRetriesPerRequest` failed reconnections came first: a Redis back within
    // a few hundred ms ran them twice (an event answered 201 once and counted twice). Failing them
    // at the first drop answers 503, which a client retries with its Idempotency-Key.
    redisOptions.maxRetriesPerRequest = 0;
    redisOptions.autoResendUnfulfilledCommands = false;
  }
  if (settings.redisClusterNodes.length > 0) {
    const clusterOptions: ClusterOptions = {
      redisOptions,
      scaleReads: 'master',
      enableAutoPipelining: false,
      maxRedirections: 16,
      clusterRetryStrategy: retryDelay,
      shardedSubscribers: opts.shardedSubscribers === true,
    };
    if (failFast) {
      clusterOptions.enableOfflineQueue = false;
      clusterOptions.lazyConnect = true;
      // A command whose node connection closed fails (503) rather than going out again after a
      // failover delay: Redis may have run it (an event would count twice once the node was
      // back), and while the node stayed down it bounced between the nodes until "Too many
      // Cluster redirections", a 500.
      clusterOptions.retryDelayOnFailover = 0;
    }
    const cluster = new Cluster(settings.redisClusterNodes, clusterOptions);
    // Without an offline queue a Cluster refuses ("Connection is closed.") a command for a node whose
    // connection is still being made, and it makes each one lazily, at its first command: two
    // commands for a node this process had not used yet, sent together, saw the second refused.
    // So once the Cluster is ready (connectNodes), each node's connection is made as soon as the
    // Cluster learns of the node. Not before: the Cluster's own ready check would find the node
    // connecting, be refused the same way, and start over.
    if (failFast) {
      cluster.on('+node', (node: Redis) => {
        if (cluster.status === 'ready' && node.status === 'wait') node.connect().catch(() => undefined);
      });
    }
    return cluster;
  }
  if (failFast) {
    redisOptions.enableOfflineQueue = false;
    redisOptions.lazyConnect = true;
  }
  return new Redis(settings.redisUrl, redisOptions);
}

/**
 * Connects every primary of a Cluster that is ready, and waits at most `timeoutMs` until each
 * connection is (a client made with `failFast` then connects the nodes it learns of later at once;
 * see createClient). A single Redis has one connection, ready once `connect()` resolved.
 */
export async function connectNodes(client: RedisClient, timeoutMs = 10_000): Promise<void> {
  if (!(client instanceof Cluster)) return;
  await Promise.all(client.nodes('master').map((node) => {
    if (node.status === 'ready') return undefined;
    const ready = new Promise<void>((resolve) => { node.once('ready', () => resolve()); });
    if (node.status === 'wait') node.connect().catch(() => undefined);
    return settleWithin(ready, timeoutMs);
  }));
}

/**
 * Closes a client without waiting on a Redis that does not answer: QUIT (which lets replies in
 * flight arrive) when the connection is ready, for at most `timeoutMs`; a plain disconnect
 * otherwise. A QUIT on a connection that is down waits in the offline queue until Redis is back.
 */
export async function closeClient(client: RedisClient, timeoutMs = 2000): Promise<void> {
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  await settleWithin(client.quit(), timeoutMs);
  if ((client.status as string) !== 'end') client.disconnect();
}

/** Waits for `p` at most `ms`; true when it settled in time (its rejection is swallowed). */
export async function settleWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.then(() => true, () => true),
    new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), ms); }),
  ]).finally(() => clearTimeout(timer));
}

export interface Subscription {
  close(): void;
}

export interface SubscriptionHandlers {
  /** A message on the channel, with what it says. */
  message(text: string): void;
  /** Connection errors of the subscriber (it retries by itself). */
  error(err: Error): void;
  /** Subscribed again after a lost connection: messages may have been missed meanwhile. */
  resubscribed(): void;
  /** The subscriber's connection, to watch (src/redis/outage.ts). */
  connection?(client: Redis): void;
}

/**
 * Subscribes to one channel as a shard channel (SSUBSCRIBE; its messages sent with `announce`,
 * SPUBLISH); resolves once subscribed. A shard channel's message reaches the subscribers of the
 * node that owns the channel's slot before the publisher's SPUBLISH answers, as a plain channel's
 * does on a single Redis; a plain PUBLISH on a Cluster travels to the other nodes over the
 * Cluster's bus, later, so a word sent just before an answer (a topic taken up, then an event)
 * could arrive after what the answer let happen.
 *
 * On a single Redis, a duplicate of the client (ioredis subscribes it again on every
 * reconnection). On a Cluster, a plain connection to the primary of the channel's slot, made
 * again, with the same backoff as the other connections, when it fails, when the node refuses
 * (MOVED) or when the Cluster's slot map, read again on any of the connection's errors, names
 * another owner: a Cluster's own subscriber (`duplicate()`) picks the next node at once, without
 * any delay, so with every node down it reconnects in a loop that takes a whole core and grows
 * without bound.
 */
export async function subscribe(client: RedisClient, channel: string, on: SubscriptionHandlers): Promise<Subscription> {
  if (!(client instanceof Cluster)) {
    const sub = client.duplicate({ lazyConnect: false, enableOfflineQueue: true });
    on.connection?.(sub);
    sub.on('error', on.error);
    sub.on('smessage', (_channel: string, text: string) => on.message(text));
    let readyOnce = false;
    sub.on('ready', () => { if (readyOnce) on.resubscribed(); readyOnce = true; });
    await sub.ssubscribe(channel);
    return { close: () => sub.disconnect() };
  }
  return new SlotSubscriber(client, channel, on).start();
}

/**
 * Sends a message on a channel that `subscribe` follows (SPUBLISH, to the node of the channel's
 * slot); answers how many subscribers of that node had it before the answer.
 */
export async function announce(client: RedisClient, channel: string, message: string): Promise<number> {
  return Number(await client.spublish(channel, message));
}

class SlotSubscriber implements Subscription {
  private readonly cluster: Cluster;
  private readonly channel: string;
  private readonly slot: number;
  private readonly on: SubscriptionHandlers;
  /** The nodes last seen: a Cluster whose nodes all failed forgets them all. */
  private known: string[] = [];
  private current: Redis | null = null;
  /** The node (`host:port`) of the current connection. */
  private node = '';
  private timer: NodeJS.Timeout | null = null;
  private attempts = 0;
  private next = 0;
  private closed = false;
  /** The first subscription's promise, until it settles (null after: a later one is a resubscription). */
  private first: { resolve(): void; reject(err: unknown): void } | null = null;
  private readonly refreshed = () => {
    const owner = this.owner();
    if (owner !== undefined && owner !== this.node && this.current !== null) this.again(this.current, false);
  };

  constructor(cluster: Cluster, channel: string, on: SubscriptionHandlers) {
    this.cluster = cluster;
    this.channel = channel;
    this.slot = keySlot(channel);
    this.on = on;
  }

  /** The primary of the channel's slot, as the Cluster's slot map says now. */
  private owner(): string | undefined {
    return this.cluster.slots[this.slot]?.[0];
  }

  /** The owner, else (slots unknown) the nodes the Cluster knows now, else the ones it knew last, in turn. */
  private target(): string | undefined {
    const owner = this.owner();
    if (owner !== undefined) return owner;
    const now = this.cluster.nodes('all').map((n) => `${n.options.host}:${n.options.port}`);
    if (now.length > 0) this.known = now;
    return this.known.length === 0 ? undefined : this.known[this.next++ % this.known.length];
  }

  async start(): Promise<Subscription> {
    this.cluster.on('refresh', this.refreshed);
    await new Promise<void>((resolve, reject) => {
      this.first = { resolve, reject };
      this.connect();
    });
    return this;
  }

  /**
   * Settles the first subscription: a failure of its own (no node, a node that does not answer)
   * fails the start; an attempt left for another (the slot's owner learnt meanwhile) does not.
   */
  private settle(err?: unknown): void {
    const first = this.first;
    this.first = null;
    if (first === null) return;
    if (err === undefined) return first.resolve();
    this.close();
    first.reject(err);
  }

  private connect(): void {
    const node = this.target();
    if (node === undefined) {
      if (this.first !== null) return this.settle(new Error('Cluster is disconnected: no node to subscribe on'));
      this.timer = setTimeout(() => {
        this.timer = null;
        if (!this.closed) this.connect();
      }, retryDelay(++this.attempts));
      return;
    }
    const at = node.lastIndexOf(':');
    const base = this.cluster.options.redisOptions ?? {};
    const sub = new Redis({
      host: node.slice(0, at),
      port: Number(node.slice(at + 1)),
      username: base.username,
      password: base.password,
      tls: base.tls,
      connectionName: base.connectionName ? `${base.connectionName}-sub` : undefined,
      // One attempt per node; `again` makes the next after a delay.
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: true,
    });
    this.current = sub;
    this.node = node;
    this.on.connection?.(sub);
    sub.on('error', (err: Error) => {
      this.on.error(err);
      // A slot that moved unsubscribes its old node's subscribers (ioredis reports the unasked
      // `sunsubscribe` as an error): the slot map read again names the new owner (`refreshed`).
      this.cluster.refreshSlotsCache();
    });
    sub.on('smessage', (_channel: string, text: string) => this.on.message(text));
    sub.once('end', () => {
      // The first connection lost before it subscribed: the start fails (as any other first connection does).
      if (this.current === sub && this.first !== null) return this.settle(new Error(`could not subscribe to ${this.channel} on ${node}`));
      this.again(sub, true);
    });
    // A node that does not own the slot answers MOVED, which ioredis reports as `moved` (the
    // command then never settles): the Cluster's slot map is read again, and the next try follows it.
    sub.once('moved', () => {
      this.cluster.refreshSlotsCache();
      this.again(sub, true);
    });
    sub.ssubscribe(this.channel).then(() => {
      this.attempts = 0;
      if (this.first === null) this.on.resubscribed();
      this.settle();
    }, (err: unknown) => {
      if (this.current === sub) this.settle(err);
    });
  }

  /** Leaves `sub` (if still the current one) and connects again: after a delay when it failed, at once when the slot moved. */
  private again(sub: Redis, failed: boolean): void {
    if (this.closed || this.current !== sub) return;
    this.current = null;
    sub.disconnect();
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.closed) this.connect();
    }, failed ? retryDelay(++this.attempts) : 0);
  }

  close(): void {
    this.closed = true;
    this.cluster.off('refresh', this.refreshed);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.current?.disconnect();
    this.current = null;
  }
}

/** Connects once without retries and pings; throws RedisUnavailableError with a how-to. */
export async function probeRedis(settings: Settings, timeoutMs = 3000): Promise<void> {
  let probe: RedisClient;
  if (settings.redisClusterNodes.length > 0) {
    probe = new Cluster(settings.redisClusterNodes, {
      lazyConnect: true,
      clusterRetryStrategy: () => null,
      redisOptions: { connectTimeout: timeoutMs, maxRetriesPerRequest: 0 },
    });
  } else {
    probe = new Redis(settings.redisUrl, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
  }
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
  } catch (err) {
    throw new RedisUnavailableError(
      `laurel cannot reach ${where(settings)} (${(err as Error).message}). ` +
        'Start one (for example: redis-server --port 6379, or docker compose up redis) ' +
        'or point REDIS_URL (or REDIS_CLUSTER_NODES) at a running Redis 7.',
    );
  } finally {
    probe.disconnect();
  }
}

/** The primaries of a Cluster, or the one Redis. */
export function primaries(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}

/** Every key matching `pattern`, a batch at a time (on every primary of a Cluster). */
export async function* scanKeys(client: RedisClient, pattern: string, count = 500): AsyncGenerator<string[]> {
  for (const node of primaries(client)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }
}

/**
 * Removes the members of a sorted set (`zset`) or the fields of a hash (`hash`) that match
 * `pattern` (SCAN's MATCH) and pass `theirs`, `atOnce` per ZREM or HDEL; answers how many went.
 */
async function removeScanned(
  client: RedisClient, key: string, type: 'zset' | 'hash', pattern: string, theirs: (item: string) => boolean, atOnce: number,
): Promise<number> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, flat] = type === 'zset'
      ? await client.zscan(key, cursor, 'MATCH', pattern, 'COUNT', 1000)
      : await client.hscan(key, cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    for (let i = 0; i < flat.length; i += 2) if (theirs(flat[i])) found.push(flat[i]);
  } while (cursor !== '0');
  for (let i = 0; i < found.length; i += atOnce) {
    const some = found.slice(i, i + atOnce);
    await (type === 'zset' ? client.zrem(key, ...some) : client.hdel(key, ...some));
  }
  return found.length;
}

/** A sorted set's members that match `pattern` and pass `theirs` removed (removeScanned). */
export function removeMatching(
  client: RedisClient, key: string, pattern: string, theirs: (member: string) => boolean = () => true, atOnce = 500,
): Promise<number> {
  return removeScanned(client, key, 'zset', pattern, theirs, atOnce);
}

/** A hash's fields that match `pattern` and pass `theirs` removed (removeScanned). */
export function removeMatchingFields(
  client: RedisClient, key: string, pattern: string, theirs: (field: string) => boolean = () => true, atOnce = 500,
): Promise<number> {
  return removeScanned(client, key, 'hash', pattern, theirs, atOnce);
}

/** Whether Redis answers a PING within `ms` (the api's `/ready`). */
export async function answersPing(client: RedisClient, ms: number): Promise<boolean> {
  try {
    return (await Promise.race([
      client.ping(),
      new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), ms).unref()),
    ])) === 'PONG';
  } catch {
    return false;
  }
}
