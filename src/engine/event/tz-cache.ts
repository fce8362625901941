import type { StoredClock } from '../../domain/clock.js';
import { BoundedMap } from '../../lib/memo.js';

/** What the api remembers of a user seen lately: their zone ('' is UTC) and their clock as last seen. */
interface Seen {
  tz: string;
  clock: StoredClock | null;
}

/**
 * Remembers the time zones and clocks of users seen lately, so the event script's first call
 * usually assumes right (it says so when it does not: the zone, or the clock, follows).
 */
export class TzCache {
  private readonly map = new BoundedMap<string, Seen>(100_000);

  get(tenant: string, userId: string): string {
    return this.map.get(tenant + '\u0000' + userId)?.tz ?? '';
  }

  set(tenant: string, userId: string, tz: string): void {
    const k = tenant + '\u0000' + userId;
    const seen = this.map.get(k);
    if (seen !== undefined) seen.tz = tz;
    else if (tz !== '') this.map.set(k, { tz, clock: null });
  }

  /** The user's clock as last seen (null: none known). */
  clock(tenant: string, userId: string): StoredClock | null {
    return this.map.get(tenant + '\u0000' + userId)?.clock ?? null;
  }

  setClock(tenant: string, userId: string, clock: StoredClock | null): void {
    const k = tenant + '\u0000' + userId;
    const seen = this.map.get(k);
    if (seen !== undefined) seen.clock = clock;
    else if (clock !== null) this.map.set(k, { tz: '', clock });
  }
}
