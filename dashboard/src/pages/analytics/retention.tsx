/** The 14-day retention of the control group (no notifications) against the rest, as the analytics answer gives it. */
import type { RetentionView as Retention } from '../../types.js';
import { count } from '../../words.js';

const share = (g: { users: number; retained: number }) => (g.users === 0 ? '—' : `${Math.round((1000 * g.retained) / g.users) / 10}%`);

export function RetentionTable({ retention: r }: { retention: Retention }) {
  if (r.cohortFrom === null) return <p class="muted">No user of this range can be judged yet: their {r.days}th day is after its end.</p>;
  return (
    <>
      <p class="muted">Users first seen from {r.cohortFrom} to {r.cohortTo}, and how many acted again {count(r.days, 'day')} or more after their first day.</p>
      <table class="retention">
        <thead><tr><th>Group</th><th>Users</th><th>Retained</th><th>Share</th></tr></thead>
        <tbody>
          <tr><td>Control group (no notifications)</td><td>{r.control.users}</td><td>{r.control.retained}</td><td>{share(r.control)}</td></tr>
          <tr><td>The rest</td><td>{r.rest.users}</td><td>{r.rest.retained}</td><td>{share(r.rest)}</td></tr>
        </tbody>
      </table>
    </>
  );
}
