/**
 * A rankings answer's rows (`GET /leaderboards/{key}`, a league's cohort): each row's `percentile`
 * checked against its rank and the answer's `participants` (docs/api.md, "Boards without a cap"),
 * then left out, so that a test compares the spec's four fields.
 */
import { expect } from 'vitest';
import { percentileOf } from '../../src/domain/leaderboards/cap.js';

export interface Row {
  userId: string;
  userName: string | null;
  rank: number;
  value: number;
}

export function rowsOf(body: { rankings: (Row & { percentile?: number })[]; participants: number }): Row[] {
  return body.rankings.map(({ percentile, ...row }) => {
    expect(percentile, JSON.stringify(row)).toBe(percentileOf(row.rank, body.participants));
    return row;
  });
}
