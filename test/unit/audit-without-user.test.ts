/**
 * An audit entry's body without an erased user (src/domain/audit.ts withoutUser): what names them
 * becomes `{ erasureId }`, and nothing else changes, whatever else reads as their id.
 */
import { describe, expect, it } from 'vitest';
import { withoutUser } from '../../src/domain/audit.js';

const E = 'erasure-1';

describe('withoutUser', () => {
  it('replaces a batch item\'s user, an item\'s userId and a streak restore\'s user', () => {
    expect(withoutUser([
      { key: 'lessons', user: { id: 'ann', email: 'ann@example.com' }, value: 1 },
      { key: 'lessons', user: { id: 'bob' }, value: 1 },
    ], 'ann', E)).toEqual({ body: [{ key: 'lessons', user: { erasureId: E }, value: 1 }, { key: 'lessons', user: { id: 'bob' }, value: 1 }] });
    expect(withoutUser({ freezes: [{ userId: 'ann' }, { userId: 'bob' }] }, 'ann', E)).toEqual({ body: { freezes: [{ erasureId: E }, { userId: 'bob' }] } });
    expect(withoutUser({ events: [{ eventId: 'e1', userId: 'ann', reason: 'farming' }] }, 'ann', E)).toEqual({ body: { events: [{ erasureId: E }] } });
    expect(withoutUser({ users: [{ id: 'ann', streak: 3 }, { id: 'bob', streak: 1 }] }, 'ann', E))
      .toEqual({ body: { users: [{ erasureId: E }, { id: 'bob', streak: 1 }] } });
  });

  it('leaves what only reads as their id: a metric\'s key, a reason, an id of something else', () => {
    const body = [
      { key: 'likes', user: { id: 'u1' }, value: 1 },
      { id: 'likes', name: 'Likes' },
      { events: [{ eventId: 'e2', userId: 'u1', reason: 'likes' }] },
      'likes',
    ];
    expect(withoutUser(body, 'likes', E)).toBeNull();
    expect(withoutUser(null, 'likes', E)).toBeNull();
  });
});
