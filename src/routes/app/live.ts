/**
 * `GET /v1/live` (and `/api/live`) as a plain HTTP request: the WebSocket route of the same path
 * (src/http/live-socket.ts) takes the upgrades, and this one answers the rest, once the key is
 * authorized like the upgrade's, 426 `upgrade_required`. Its description is the OpenAPI
 * document's account of the live updates (docs/live.md has the protocol).
 */
import { fail } from '../../lib/errors.js';
import type { Route } from '../../http/server.js';

export const LIVE_PATH = '/live';

/** The live updates' route: the upgrade is authorized as this route. */
export function liveRoute(): Route {
  return {
    method: 'get', path: LIVE_PATH, family: 'app', subject: 'shared', queryCredentials: true,
    doc: {
      summary: 'Live updates over WebSocket',
      description: 'Upgrades to a WebSocket (RFC 6455) on which a client subscribes to `user:<id>`, `leaderboard:<key>` and `league:<key>` (a league\'s cohort) topics and '
        + 'receives `{ topic, seq, type, data }` messages with the webhook event types and payloads as they happen. The key may come as '
        + '`?key=` and the tenant as `?tenant=` (browsers cannot set headers on a WebSocket); a refused upgrade answers its status with '
        + 'the JSON error body. A request that is no upgrade answers 426. Protocol: docs/live.md.',
      query: [
        { name: 'key', schema: { type: 'string' }, description: 'The API key, when no X-API-KEY header can be sent (a key scoped to one user is the intended client key)' },
        { name: 'tenant', schema: { type: 'string' }, description: 'The tenant, when no Tenant-ID header can be sent' },
      ],
      success: [101],
      refusals: [426],
    },
    handler: (req) => {
      throw fail('upgrade_required', req.url);
    },
  };
}
