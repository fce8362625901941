/** The tenant's notification deliveries, newest first (GET /admin/v1/notifications/deliveries), by user and status. */
import { useState } from 'preact/hooks';
import type { Session } from '../../api.js';
import { Field } from '../../form.js';
import { ListBox, useList } from '../../list.js';
import type { NotificationDeliveryView as Delivery } from '../../types.js';

export type { Delivery };


const STATUSES = ['scheduled', 'sending', 'sent', 'failed', 'suppressed', 'cancelled'];

/** The deliveries' table (also on a user's page). */
export function DeliveryTable({ items }: { items: Delivery[] }) {
  return (
    <table class="notification-deliveries">
      <thead><tr><th>For</th><th>Type</th><th>Channel</th><th>User</th><th>Status</th><th>Sent</th></tr></thead>
      <tbody>{items.map((d) => (
        <tr key={d.id}>
          <td>{d.scheduledFor.replace('T', ' ').slice(0, 16)}</td><td>{d.type}</td><td>{d.channel}</td><td>{d.userId}</td>
          <td>{d.status}{d.reason === undefined ? '' : ` (${d.reason})`}{d.error === undefined ? '' : `: ${d.error}`}</td>
          <td>{d.sentAt === null ? '—' : d.sentAt.replace('T', ' ').slice(0, 16)}</td>
        </tr>
      ))}</tbody>
    </table>
  );
}

export function NotificationDeliveries({ session }: { session: Session }) {
  const [filter, setFilter] = useState({ userId: '', status: '' });
  const [applied, setApplied] = useState(filter);
  const query = new URLSearchParams({ limit: '50' });
  if (applied.userId.trim() !== '') query.set('userId', applied.userId.trim());
  if (applied.status !== '') query.set('status', applied.status);
  const list = useList<Delivery>(session, `/admin/v1/notifications/deliveries?${query}`);
  return (
    <div class="card">
      <h2>Deliveries</h2>
      <form class="row" aria-label="Filter the deliveries" onSubmit={(e) => { e.preventDefault(); setApplied({ ...filter }); void list.reload(); }}>
        <Field id="nd-user" label="User id">
          <input id="nd-user" value={filter.userId} onInput={(e) => setFilter({ ...filter, userId: e.currentTarget.value })} />
        </Field>
        <Field id="nd-status" label="Status">
          <select id="nd-status" value={filter.status} onChange={(e) => setFilter({ ...filter, status: e.currentTarget.value })}>
            <option value="">Any</option>{STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </Field>
        <button type="submit">Show</button>
      </form>
      <ListBox list={list} empty="No deliveries.">{(items) => <DeliveryTable items={items} />}</ListBox>
    </div>
  );
}
