/**
 * One account per process of the times Redis cannot be reached. Every connection of the process
 * (the request client, the configuration subscriber, the BullMQ connections) reports here rather
 * than to the log: the first failure logs one warning, the failures after it are counted and
 * logged at most once per `everyMs` ("still unreachable"), and "reachable again" is logged once a
 * connection is ready again and none is failing. A connection retries every few
 * seconds at most (src/redis/client.ts), so an outage would otherwise log several lines a second.
 */
import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { storeOf } from '../lib/stores.js';

/**
 * The ioredis and BullMQ errors that say "Redis is not reachable now", not "this command is wrong".
 * Never another store's (a refused connection to Postgres reads the same: src/lib/stores.ts).
 */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error) || storeOf(err) !== null) return false;
  return /Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|connect ETIMEDOUT|Reached the max retries|ClusterAllFailedError|Failed to refresh slots|enableOfflineQueue options is false|Cluster is disconnect|Too many Cluster redirections|None of startup nodes|Connection is discarded|Connection is aborted|Command timed out|CLUSTERDOWN|LOADING/i
    .test(err.message) || err.name === 'MaxRetriesPerRequestError' || err.name === 'ClusterAllFailedError';
}

export class RedisOutage {
  private readonly log: Logger;
  private readonly everyMs: number;
  /** The connections whose last word was an error (removed by their 'ready' or 'end'). */
  private readonly failing = new Set<object>();
  private since = 0;
  private lastLine = 0;
  private unlogged = 0;
  private lastError = '';
  /** Every failure counted here since the process started: the connections' and the noise (`laurel_store_errors_total`). */
  failures = 0;

  constructor(log: Logger, everyMs = 30_000) {
    this.log = log;
    this.everyMs = everyMs;
  }

  /** True from a watched connection's failure until one is ready again with none failing. */
  get down(): boolean {
    return this.since !== 0;
  }

  /** Takes over a connection's 'error' events (which then log nothing themselves), 'ready' and 'end'. */
  watch(client: EventEmitter, name: string): void {
    client.on('error', (err: Error) => this.failed(client, name, err));
    client.on('ready', () => this.ready(client, true));
    // Closed for good (shut down): no longer failing, and no news of Redis either.
    client.on('end', () => this.ready(client, false));
  }

  /** A failure of a watched connection. */
  failed(who: object, name: string, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.failures++;
    this.lastError = message;
    const now = Date.now();
    if (this.since === 0) {
      this.since = now;
      this.lastLine = now;
      this.unlogged = 0;
      this.log.warn({ err: message, connection: name }, 'Redis unreachable; retrying every few seconds (requests get 503 meanwhile)');
    } else {
      this.note(now);
    }
    this.failing.add(who);
  }

  /**
   * An error that a connection error explains, from something that is not a watched connection
   * (a BullMQ worker's loop, a poll): counted, not logged one by one. Outside an outage it is
   * logged, at most once per `everyMs`.
   */
  noise(err: unknown, what: string): void {
    this.failures++;
    const now = Date.now();
    if (this.since !== 0) {
      this.note(now);
      return;
    }
    if (now - this.lastLine >= this.everyMs) {
      this.lastLine = now;
      this.log.warn({ err: err instanceof Error ? err.message : String(err), what }, 'Redis connection error');
    }
  }

  /** An error: the outage's to count when Redis's connection explains it (noise), else a warning in `log`. */
  warn(log: Logger, err: unknown, what: string): void {
    if (isConnectionError(err)) this.noise(err, what);
    else log.warn({ err }, what);
  }

  private note(now: number): void {
    this.unlogged++;
    if (now - this.lastLine >= this.everyMs) {
      this.log.warn({ err: this.lastError, downForS: Math.round((now - this.since) / 1000), failures: this.unlogged }, 'Redis still unreachable');
      this.lastLine = now;
      this.unlogged = 0;
    }
  }

  /**
   * A connection is ready (`reached`), or closed for good (which says nothing of Redis: a
   * subscriber's connection to one Cluster node ends after each failed attempt).
   */
  private ready(who: object, reached: boolean): void {
    this.failing.delete(who);
    if (!reached || this.failing.size > 0 || this.since === 0) return;
    this.log.info({ downForMs: Date.now() - this.since, failures: this.unlogged }, 'Redis reachable again');
    this.since = 0;
    this.unlogged = 0;
  }
}
