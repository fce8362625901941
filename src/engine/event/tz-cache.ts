import { BoundedMap } from '../../lib/memo.js';

/** Remembers time zones of users seen lately, so the event script's first call usually assumes right. */
export class TzCache {
  private readonly map = new BoundedMap<string, string>(100_000);

  get(tenant: string, userId: string): string {
    return this.map.get(tenant + '\u0000' + userId) ?? '';
  }

  set(tenant: string, userId: string, tz: string): void {
    const k = tenant + '\u0000' + userId;
    if (tz === '') this.map.delete(k);
    else this.map.set(k, tz);
  }
}
