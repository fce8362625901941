/**
 * Which topic a socket's key may hold, and under which id it is stored (docs/live.md, "Topics";
 * src/domain/live/topics.ts):
 * - `user:<id>`: a key scoped to a user, its own only (403 `wrong_user`); an account key, any.
 * - `leaderboard:<key>`: any key; a board that is not there or inactive is `not_found`, as
 *   `GET /v1/leaderboards/{key}` answers.
 * - `league:<key>`: a key scoped to a user, the cohort its user holds, under an id of its own per
 *   user (leagueTopicId): the publisher sends it only the cohort of that user, so no topic string
 *   reaches another cohort. An account key acts for no user: `invalid_body`, naming the form
 *   that names one.
 * - `league:<key>:<userId>`: that user's cohort; an account key, any user; a key scoped to a
 *   user, its own only (403 `wrong_user`).
 * A league's topic on a board that is not there, inactive, or without a league is `not_found`.
 */
import { leagueTopicId, type Topic } from '../domain/live/topics.js';
import { fail } from '../lib/errors.js';
import type { Snapshot } from '../model/snapshot.js';

/** The id a topic is held under for a key acting for `user` (null: an account key); throws the refusal. */
export function topicIdOf(topic: Topic, user: string | null, snapshot: Snapshot): string {
  switch (topic.kind) {
    case 'user':
      if (user !== null && topic.id !== user) throw fail('wrong_user', `it acts for "${user}", not for "${topic.id}"`);
      return topic.name;
    case 'leaderboard':
      activeBoard(snapshot, topic.key, false);
      return topic.name;
    case 'league':
      if (topic.user === null && user === null) {
        throw fail('invalid_body', `an account key acts for no user: "${topic.name}" is a user's own cohort; name the user: "${topic.name}:<userId>"`);
      }
      if (topic.user !== null && user !== null && topic.user !== user) throw fail('wrong_user', `it acts for "${user}", not for "${topic.user}"`);
      activeBoard(snapshot, topic.key, true);
      return topic.user === null ? leagueTopicId(topic.key, user!) : topic.name;
  }
}

/** Throws `not_found` for a board that is not there or inactive (or, `league`, has no league). */
function activeBoard(snapshot: Snapshot, key: string, league: boolean): void {
  const lb = snapshot.leaderboardsByKey.get(key);
  // As the Application API: an inactive board is not found.
  if (lb === undefined || lb.status === 'inactive') throw fail('not_found', `Leaderboard "${key}"`);
  if (league && !lb.league) throw fail('not_found', `A league on the leaderboard "${key}"`);
}
