/**
 * The rate limit per API key (docs/operations.md, "Rate limits"): the account's keys take
 * LAUREL_RATE_LIMIT's, the keys scoped to a user LAUREL_USER_KEY_RATE_LIMIT's (a limit by default).
 * One GCRA bucket per key in Redis (lua/includes/gcra.lua), so that every api process counts
 * against the same one. A request of an account's key costs one script call on the key's own slot,
 * a user-scoped key's none more (its lookup takes it); a kind without a limit has no limiter, and
 * nothing is called for it.
 *
 * Time is the service's clock, passed to the script as every script's time is: Redis's `TIME`
 * would hold across hosts whose clocks disagree, but would make the one script that reads the time
 * itself, and the manual clock of the tests could not drive it. The api hosts' clocks should agree
 * (NTP): a TAT set by a host ahead of the others only makes the key wait one interval at most
 * (the script takes a TAT further ahead than a spent burst for a clock that went back).
 */
import { fail, type HttpError } from '../../lib/errors.js';
import { BoundedMap } from '../../lib/memo.js';
import type { RateLimit, Settings } from '../../lib/settings.js';
import type { Context } from '../context.js';
import * as rateLimit from '../../redis/scripts/rateLimit.js';

export class RateLimiter {
  /** ms between two requests at the limit. */
  readonly interval: number;
  /** ms a key may run ahead of its rate: the burst. */
  readonly tolerance: number;
  private readonly deps: Pick<Context, 'redis' | 'keys' | 'clock'>;
  /** The most requests a key may make at once: what one request may count as at most. */
  private readonly burst: number;
  private readonly text: string;
  private readonly buckets = new BoundedMap<string, string>(10_000);

  constructor(deps: Pick<Context, 'redis' | 'keys' | 'clock'>, limit: RateLimit) {
    this.deps = deps;
    this.interval = 1000 / limit.perSecond;
    this.tolerance = (limit.burst - 1) * this.interval;
    this.burst = limit.burst;
    this.text = `${limit.perSecond} a second, ${limit.burst} at once`;
  }

  /**
   * Takes a request of the key's (by its id) that counts as `weight` requests; rejects with a 429
   * when the key is over its limit.
   */
  async take(keyId: string, weight = 1): Promise<void> {
    let bucket = this.buckets.get(keyId);
    if (bucket === undefined) this.buckets.set(keyId, (bucket = this.deps.keys.apiKey(keyId).bucket));
    const wait = await rateLimit.run(this.deps.redis, bucket, { now: this.deps.clock.now(), ...this.costOf(weight) });
    if (wait > 0) throw this.refusal(wait);
  }

  /**
   * The GCRA's arguments for a request that counts as `weight` requests (at most the burst, so that
   * any request may go once the key's burst is whole): it moves the key's time on by `weight`
   * intervals, and goes when it would have gone as the last of `weight` requests at once.
   */
  costOf(weight: number): { interval: number; tolerance: number } {
    const w = Math.min(Math.max(1, Math.ceil(weight)), this.burst);
    return { interval: w * this.interval, tolerance: this.tolerance - (w - 1) * this.interval };
  }

  /** The 429 of a key that must wait `waitMs`: `Retry-After` in whole seconds, at least 1. */
  refusal(waitMs: number): HttpError {
    const seconds = String(Math.max(1, Math.ceil(waitMs / 1000)));
    const err = fail('rate_limited', this.text, seconds);
    err.headers = { 'retry-after': seconds };
    return err;
  }
}

/** The limiter of each kind of key: the account's keys' and the user-scoped keys'; null: that kind has no limit. */
export interface KeyLimits {
  account: RateLimiter | null;
  user: RateLimiter | null;
}

/** The limiters the settings ask for. */
export function keyLimits(deps: Pick<Context, 'redis' | 'keys' | 'clock'>, settings: Pick<Settings, 'rateLimit' | 'userKeyRateLimit'>): KeyLimits {
  return {
    account: settings.rateLimit === null ? null : new RateLimiter(deps, settings.rateLimit),
    user: settings.userKeyRateLimit === null ? null : new RateLimiter(deps, settings.userKeyRateLimit),
  };
}

/** The limiter a key's requests count against: a user-scoped key's (`user` set) or the account's. */
export function limiterOf(limits: KeyLimits, principal: { user: string | null }): RateLimiter | null {
  return principal.user === null ? limits.account : limits.user;
}
