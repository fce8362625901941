/**
 * The streak: its rule (streak/rule.tsx: the frequency, the metrics that extend it and how they are
 * judged, and the freezes users hold and earn), then what an admin does to users' streaks
 * (streak/users.tsx: freezes, restore) and their pauses (streak/pauses.tsx).
 */
import type { Session } from '../api.js';
import { RuleForm } from './streak/rule.js';
import { StreakPauses } from './streak/pauses.js';
import { StreakUsers } from './streak/users.js';

export function StreakPage({ session }: { session: Session }) {
  return (
    <section>
      <h1>Streak</h1>
      <RuleForm session={session} />
      <StreakUsers session={session} />
      <StreakPauses session={session} />
    </section>
  );
}
