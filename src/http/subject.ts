/**
 * What a key scoped to one user may call (src/http/auth.ts): the users a request names, found by
 * its route's `subject` (src/http/server.ts), must all be the key's user. A route that touches no
 * one user's data is open to it; one that does not say is not.
 */
import { fail } from '../lib/errors.js';
import type { Request, Route } from './server.js';
import { parseJson } from './validate.js';
import { userIdsOf } from '../domain/users.js';

/** Refuses (403) a request that names a user other than `user`, or none where its route expects one. */
export function checkSubject(req: Request, route: Route, user: string): void {
  let named: unknown[];
  switch (route.subject) {
    case 'shared':
      return;
    case 'path':
      named = [req.params[0]];
      break;
    case 'id':
    case 'user.id': {
      const body = parseJson(req.body) as { id?: unknown; user?: { id?: unknown } } | null;
      const owner = route.subject === 'id' ? body : body?.user;
      named = [typeof owner === 'object' && owner !== null ? owner.id : undefined];
      break;
    }
    case 'userIds':
      // As GET /streaks reads them.
      named = userIdsOf(new URLSearchParams(req.query).getAll('userIds'));
      break;
    default:
      throw fail('wrong_user', `${req.method} ${req.url} is not open to a key scoped to a user`);
  }
  if (named.length === 0 || named.some((x) => typeof x !== 'string')) {
    throw fail('wrong_user', `the request names no user, and this key acts for "${user}"`);
  }
  const other = named.find((x) => x !== user);
  if (other !== undefined) throw fail('wrong_user', `it acts for "${user}", not for "${String(other)}"`);
}
