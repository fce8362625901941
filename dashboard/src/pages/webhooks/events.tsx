/** The events a webhook endpoint is sent: a checkbox per type, the Admin API's refusal under them (`<id>-error`). */

export const WEBHOOK_TYPES = [
  'achievement.completed', 'streak.started', 'streak.extended', 'streak.lost', 'streak.freeze_consumed', 'streak.freeze_earned',
  'points.changed', 'points.level_changed', 'points.boost_started', 'points.boost_finished',
  'leaderboard.started', 'leaderboard.changed', 'leaderboard.finished', 'leaderboard.rank_changed',
  'emails.recap_due', 'emails.reactivation_due', 'emails.streak_reminder_due', 'emails.achievement_due',
  'event.voided', 'achievement.revoked', 'user.excluded', 'user.included',
  'league.promoted', 'league.demoted', 'league.stayed',
];

export function EventChecks(props: { id: string; value: string[]; onChange: (events: string[]) => void; error?: string }) {
  const { id, value } = props;
  const toggle = (type: string) => props.onChange(value.includes(type) ? value.filter((t) => t !== type) : [...value, type]);
  return (
    <>
      <fieldset class="checks" aria-describedby={`${id}-error`}>
        <legend>Events</legend>
        {WEBHOOK_TYPES.map((t) => (
          <label key={t}><input type="checkbox" checked={value.includes(t)} onChange={() => toggle(t)} /> {t}</label>
        ))}
      </fieldset>
      <p class="error" id={`${id}-error`} role="alert">{props.error ?? ''}</p>
    </>
  );
}
