/**
 * A user's streak as a calendar: the last 28 periods (GET /api/users/:id/streak?historyPeriods=28),
 * each cell the streak's length then, marked when a freeze or a pause bridged it; the freezes held.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import type { StreakPeriodView as Period, UserStreakView as Streak } from '../../types.js';

export function StreakCalendar({ session, userId }: { session: Session; userId: string }) {
  const [streak, setStreak] = useState<Streak | null | undefined>(undefined);
  useEffect(() => {
    void call<Streak>(session, 'GET', `/api/users/${encodeURIComponent(userId)}/streak?historyPeriods=28`).then((r) => setStreak(r.body), () => setStreak(null));
  }, [userId, session.tenant]);
  if (streak === undefined) return <p class="muted">Loading…</p>;
  if (streak === null) return <p class="muted">No streak configured.</p>;
  const mark = (p: Period) => (p.usedPause ? 'paused' : p.usedFreeze ? 'frozen' : p.length > 0 ? 'on' : 'off');
  return (
    <>
      <p>
        {streak.length} ({streak.frequency}){streak.expires === null ? '' : `, lost after ${streak.expires}`}
        {streak.freezes === undefined ? '' : `; freezes held: ${streak.freezes} of ${streak.maxFreezes ?? 0}`}
      </p>
      <ol class="calendar" aria-label="Streak, the last 28 periods">
        {streak.streakHistory.map((p) => (
          <li key={p.periodStart} class={mark(p)} title={`${p.periodStart}: ${p.length}${p.usedFreeze ? ', freeze used' : ''}${p.usedPause ? ', paused' : ''}`}>
            <span class="day">{p.periodStart.slice(5)}</span><span class="len">{p.usedPause ? 'P' : p.usedFreeze ? '❄' : p.length || ''}</span>
          </li>
        ))}
      </ol>
      <p class="muted legend"><span class="swatch on" /> extended <span class="swatch frozen" /> a freeze bridged it <span class="swatch paused" /> paused</p>
    </>
  );
}
