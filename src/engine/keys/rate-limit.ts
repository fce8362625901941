/**
 * The rate limit per API key (LAUREL_RATE_LIMIT, docs/operations.md): one GCRA bucket per key in
 * Redis (lua/includes/gcra.lua), so that every api process counts against the same one. A request
 * costs one script call on the key's own slot; with the variable unset, no limiter exists and
 * nothing is called.
 *
 * Time is the service's clock, passed to the script as every script's time is: Redis's `TIME`
 * would hold across hosts whose clocks disagree, but would make the one script that reads the time
 * itself, and the manual clock of the tests could not drive it. The api hosts' clocks should agree
 * (NTP): a TAT set by a host ahead of the others only makes the key wait one interval at most
 * (the script takes a TAT further ahead than a spent burst for a clock that went back).
 */
import { fail, type HttpError } from '../../lib/errors.js';
import { BoundedMap } from '../../lib/memo.js';
import type { RateLimit } from '../../lib/settings.js';
import type { Context } from '../context.js';
import * as rateLimit from '../../redis/scripts/rateLimit.js';

export class RateLimiter {
  /** ms between two requests at the limit. */
  readonly interval: number;
  /** ms a key may run ahead of its rate: the burst. */
  readonly tolerance: number;
  private readonly deps: Pick<Context, 'redis' | 'keys' | 'clock'>;
  private readonly text: string;
  private readonly buckets = new BoundedMap<string, string>(10_000);

  constructor(deps: Pick<Context, 'redis' | 'keys' | 'clock'>, limit: RateLimit) {
    this.deps = deps;
    this.interval = 1000 / limit.perSecond;
    this.tolerance = (limit.burst - 1) * this.interval;
    this.text = `${limit.perSecond} a second, ${limit.burst} at once`;
  }

  /** Takes one request of the key's (by its id); rejects with a 429 when the key is over its limit. */
  async take(keyId: string): Promise<void> {
    let bucket = this.buckets.get(keyId);
    if (bucket === undefined) this.buckets.set(keyId, (bucket = this.deps.keys.apiKey(keyId).bucket));
    const wait = await rateLimit.run(this.deps.redis, bucket, { now: this.deps.clock.now(), interval: this.interval, tolerance: this.tolerance });
    if (wait > 0) throw this.refusal(wait);
  }

  /** The 429 of a key that must wait `waitMs`: `Retry-After` in whole seconds, at least 1. */
  refusal(waitMs: number): HttpError {
    const seconds = String(Math.max(1, Math.ceil(waitMs / 1000)));
    const err = fail('rate_limited', this.text, seconds);
    err.headers = { 'retry-after': seconds };
    return err;
  }
}
