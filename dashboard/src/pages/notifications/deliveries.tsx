/** The tenant's notification deliveries, newest first (GET /admin/v1/notifications/deliveries), by user and status. */
import { useState } from 'preact/hooks';
import type { Session } from '../../api.js';
import { Field } from '../../form.js';
import { ItemTable, useList, type Column, type Loaded } from '../../list.js';
import type { NotificationDeliveryView as Delivery } from '../../types.js';
import { moment, typeWords } from '../../words.js';

export type { Delivery };

const STATUSES = ['scheduled', 'sending', 'sent', 'failed', 'suppressed', 'cancelled'];

const COLUMNS: Column<Delivery>[] = [
  { head: 'For', cell: (d) => moment(d.scheduledFor) },
  { head: 'Type', cell: (d) => typeWords(d.type) },
  { head: 'Channel', cell: (d) => d.channel },
  { head: 'User', cell: (d) => d.userId },
  { head: 'Status', cell: (d) => `${d.status}${d.reason === undefined ? '' : ` (${typeWords(d.reason)})`}${d.error === undefined ? '' : `: ${d.error}`}` },
  { head: 'Sent', cell: (d) => (d.sentAt === null ? '—' : moment(d.sentAt)) },
];

/** The deliveries' list (also on a user's page). */
export function DeliveryTable({ list, empty }: { list: Loaded<Delivery>; empty: string }) {
  return <ItemTable list={list} empty={empty} class="notification-deliveries" columns={COLUMNS} />;
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
      <DeliveryTable list={list} empty="No deliveries." />
    </div>
  );
}
