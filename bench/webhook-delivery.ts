/**
 * One webhook delivery's bytes, as `laurel-system-hooks` sends them most (a `streak.started` of a
 * new user, signed both ways): what `npm run bench:post-floor` posts with wrk and with laurel's
 * own client (bench/post-floor.ts, bench/post-client.ts).
 */
import { newSecret, signedHeaders } from '../src/domain/webhooks/signing.js';

const now = new Date().toISOString();
export const deliveryBody = JSON.stringify({
  type: 'streak.started',
  user: { id: 'user-48213', email: null, name: null, tz: null, deviceTokens: null, subscribeToEmails: true, attributes: {}, control: false, created: now, updated: now },
  streak: { length: 1, frequency: 'daily', started: now.slice(0, 10), periodStart: now.slice(0, 10), periodEnd: now.slice(0, 10), expires: now.slice(0, 10), freezes: 0, maxFreezes: 2, freezeAutoEarnInterval: 7, freezeAutoEarnAmount: 1 },
});
export const deliveryHeaders = signedHeaders([newSecret()], `msg_${'7'.repeat(32)}`, Math.floor(Date.now() / 1000), deliveryBody);
