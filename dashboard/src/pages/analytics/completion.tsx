/**
 * Each achievement's completion in the range, as the analytics answer gives it: the users who
 * completed it, as a bar, and their share of the range's active users.
 */
import type { AchievementShare } from '../../types.js';
import { count } from '../../words.js';
import { Bars } from './distributions.js';


const percent = (share: number) => `${Math.round(share * 1000) / 10}%`;

export function AchievementCompletion({ achievements, activeUsers }: { achievements: AchievementShare[]; activeUsers: number }) {
  if (achievements.length === 0) return <p class="muted">No achievements yet.</p>;
  return (
    <>
      <p class="muted">Users who completed each achievement in the range, and their share of the {count(activeUsers, 'user')} active in the range (an event or an achievement completed through the API).</p>
      <Bars wide label="Users who completed each achievement" rows={achievements.map((a) => ({ label: a.name, users: a.users, note: percent(a.share) }))} />
    </>
  );
}
