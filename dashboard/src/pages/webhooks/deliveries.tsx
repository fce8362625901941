/**
 * An endpoint's deliveries, newest first (GET /admin/v1/webhooks/:id/deliveries, from Postgres),
 * filtered by status, each with Retry (POST .../deliveries/:deliveryId/retry: sent again now, its
 * webhook-id unchanged).
 */
import { useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import { Field } from '../../form.js';
import { ItemTable, useList, type Column } from '../../list.js';
import type { WebhookDeliveryView as Delivery } from '../../types.js';
import { moment } from '../../words.js';

const COLUMNS: Column<Delivery>[] = [
  { head: 'Created', cell: (d) => moment(d.created) },
  { head: 'Type', cell: (d) => d.type },
  { head: 'User', cell: (d) => d.userId ?? '—' },
  { head: 'Status', cell: (d) => d.status },
  { head: 'Attempts', cell: (d) => d.attempts },
  { head: 'Last answer', cell: (d) => d.lastStatus ?? d.error ?? '—' },
];

export function Deliveries({ session, webhook }: { session: Session; webhook: { id: string; name: string } }) {
  const [status, setStatus] = useState('');
  const path = `/admin/v1/webhooks/${encodeURIComponent(webhook.id)}/deliveries`;
  const list = useList<Delivery>(session, `${path}?limit=50${status === '' ? '' : `&status=${status}`}`);
  const [message, setMessage] = useState({ done: '', error: '' });
  const retry = async (d: Delivery) => {
    try {
      await call(session, 'POST', `${path}/${encodeURIComponent(d.id)}/retry`);
      setMessage({ done: `${d.type} to be sent again.`, error: '' });
    } catch (err) {
      setMessage({ done: '', error: (err as Error).message });
    }
    await list.reload();
  };
  return (
    <div class="card" aria-label={`Deliveries to ${webhook.name}`} role="region">
      <h2>Deliveries: {webhook.name} <button type="button" class="small" onClick={() => list.reload()}>Refresh</button></h2>
      <Field id="delivery-status" label="Status">
        <select id="delivery-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          <option value="">Any</option>
          {['pending', 'sending', 'delivered', 'failed'].map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
      </Field>
      <p class="muted" role="status">{message.done}</p>
      <ItemTable list={list} empty="No deliveries yet." class="deliveries" columns={COLUMNS} error={message.error}
        actions={(d) => <button type="button" class="small" aria-label={`Retry ${d.type} ${d.id}`} onClick={() => retry(d)}>Retry</button>} />
    </div>
  );
}
