/**
 * What the Live page knows of a board's users: their names, and each one's place (rank and value,
 * by group) as the page last saw it, from the board's rankings read before the topic is followed
 * and from the topic's messages since. The publisher follows boards only while some socket
 * listens, so its first word of a user ranked meanwhile says `previousRank` null; `move` shows such
 * a user moving from the place the page saw, or not at all when the value is the same, so that
 * "new" is left for users who entered.
 */
import type { LeaderboardRankChangedData, RankedView, RankingView } from '../../types.js';

/** A move as the page lists it: a `leaderboard.rank_changed`'s user, rank and value, and when it came. */
export interface Move {
  seq: number;
  userId: string;
  name: string | null;
  rank: number;
  previousRank: number | null;
  value: number;
  previousValue: number | null;
  at: string;
}

export class Places {
  /** Users' names by id. */
  readonly names = new Map<string, string>();
  private readonly seen = new Map<string, { rank: number; value: number }>();

  private static key(group: string | undefined, userId: string): string {
    return `${group ?? ''}\u0000${userId}`;
  }

  /** The board's rankings as read (a board without groups). */
  read(rankings: RankingView[]): void {
    for (const r of rankings) {
      this.seen.set(Places.key('', r.userId), { rank: r.rank, value: r.value });
      if (r.userName !== null) this.names.set(r.userId, r.userName);
    }
  }

  /** A top 10 the topic gave (`leaderboard.changed`). */
  top(group: string | undefined, rankings: RankedView[]): void {
    for (const r of rankings) this.seen.set(Places.key(group, r.userId), { rank: r.rank, value: r.value });
  }

  /** A `leaderboard.rank_changed` as the page lists it; null when the user did not move. */
  move(seq: number, data: LeaderboardRankChangedData): Move | null {
    const lb = data.leaderboard;
    if (data.user.name !== null) this.names.set(data.user.id, data.user.name);
    const key = Places.key(lb.breakdownAttributeValue, data.user.id);
    const before = lb.previousRank === null ? this.seen.get(key) : undefined;
    this.seen.set(key, { rank: lb.rank, value: lb.value });
    if (before !== undefined && before.value === lb.value) return null;
    return {
      seq, userId: data.user.id, name: data.user.name, rank: lb.rank, value: lb.value,
      previousRank: before?.rank ?? lb.previousRank, previousValue: before?.value ?? lb.previousValue, at: new Date().toLocaleTimeString(),
    };
  }
}
