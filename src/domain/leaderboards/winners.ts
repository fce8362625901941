/**
 * A finished run's winners (the top three of each breakdown group) after an erasure: the erased
 * user taken out, and those ranked below them moved up by one, as the run's ranking closes up
 * without them (docs/api.md, "Erasing a user"), so that every winner's rank is the one the
 * rankings show. Nobody else becomes a winner: the winners are those of the finalisation.
 */

/** A run's winner as recorded (the state hash, the `finalised` log entry). */
export interface RankedWinner {
  userId: string;
  rank: number;
}

/** `winners` without `userId`, the ranks below theirs moved up; null when they were none of them. */
export function winnersWithout<W extends RankedWinner>(winners: readonly W[], userId: string): W[] | null {
  const gone = winners.filter((w) => w.userId === userId).map((w) => w.rank);
  if (gone.length === 0) return null;
  return winners.filter((w) => w.userId !== userId).map((w) => {
    const above = gone.filter((rank) => rank < w.rank).length;
    return above === 0 ? w : { ...w, rank: w.rank - above };
  });
}
