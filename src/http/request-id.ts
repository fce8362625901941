/**
 * Request ids (docs/operations.md, "Logs"): every request the api answers gets one, sent back in
 * the `X-Request-Id` header and written with each of its log lines and with the audit entry it
 * causes. laurel makes it (the client's own `X-Request-Id`, which might name a user, is not
 * stored): this process's tag, random at its start, and a count, so that ids of several processes
 * and restarts do not meet, at the cost of a counter per request.
 */
import { randomBytes } from 'node:crypto';

const TAG = randomBytes(5).toString('hex');
let count = 0;

/** A new request id: `<10 hex digits of this process>-<count in base 36>`. */
export function nextRequestId(): string {
  count++;
  return `${TAG}-${count.toString(36)}`;
}

/** The header it is answered in. */
export const REQUEST_ID_HEADER = 'x-request-id';
