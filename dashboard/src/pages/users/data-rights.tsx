/**
 * A user's data rights (docs/dashboard.md, "Users"): **Export** downloads everything laurel holds
 * about them (GET /admin/v1/users/:id/export, one JSON document), **Erase** asks first, then erases
 * them (DELETE /admin/v1/users/:id) and follows the erasure (GET /admin/v1/erasures/:erasureId)
 * until the workers are done.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, type Session } from '../../api.js';
import { useConfirm } from '../../confirm.js';

interface Erasure {
  id: string;
  status: 'pending' | 'done';
  redisKeys: number;
  redisMembers: number;
  archivedEntries: number;
  postgresRows: number;
}

/** How often a pending erasure is asked about (ms). */
const FOLLOW_MS = 1000;

/** The export as a file the browser saves: `user-<id>.json`. */
async function download(session: Session, userId: string): Promise<void> {
  const headers: Record<string, string> = { 'X-API-KEY': session.key };
  if (session.tenant !== '') headers['Tenant-ID'] = session.tenant;
  const res = await fetch(`/admin/v1/users/${encodeURIComponent(userId)}/export`, { headers });
  if (res.status >= 400) {
    const body = (await res.json().catch(() => null)) as { error?: string } | null;
    throw new ApiError(res.status, body?.error ?? `HTTP ${res.status}`);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = `user-${userId}.json`;
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

/** `erased`: told once the erasure is asked for (the page then stops showing the user). */
export function DataRightsOfUser({ session, userId, erased }: { session: Session; userId: string; erased?: () => void }) {
  const [dialog, confirm] = useConfirm();
  const [said, setSaid] = useState('');
  const [busy, setBusy] = useState(false);
  const [erasure, setErasure] = useState<Erasure | null>(null);
  // A pending erasure followed until it is done.
  useEffect(() => {
    if (erasure === null || erasure.status === 'done') return;
    const timer = setTimeout(() => {
      call<Erasure>(session, 'GET', `/admin/v1/erasures/${erasure.id}`).then((r) => setErasure(r.body), (err: Error) => setSaid(err.message));
    }, FOLLOW_MS);
    return () => clearTimeout(timer);
  }, [erasure]);
  const exportIt = async () => {
    setSaid('');
    setBusy(true);
    try {
      await download(session, userId);
      setSaid(`Exported: user-${userId}.json.`);
    } catch (err) {
      setSaid((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const erase = async () => {
    const yes = await confirm({
      title: `Erase the user ${userId}?`,
      body: 'Their profile, totals, achievements, streak, points, places on the leaderboards and notifications go from every store, '
        + 'and their archived events are redacted. This cannot be undone: export them first if they asked for their data.',
      action: 'Erase',
    });
    if (!yes) return;
    setSaid('');
    try {
      const { body } = await call<{ erasureId: string }>(session, 'DELETE', `/admin/v1/users/${encodeURIComponent(userId)}`);
      setErasure({ id: body.erasureId, status: 'pending', redisKeys: 0, redisMembers: 0, archivedEntries: 0, postgresRows: 0 });
      erased?.();
    } catch (err) {
      setSaid((err as Error).message);
    }
  };
  return (
    <>
      {dialog}
      <div class="buttons row">
        <button type="button" onClick={() => void exportIt()} disabled={busy}>Export</button>
        <button type="button" class="danger" onClick={() => void erase()} disabled={erasure !== null}>Erase</button>
      </div>
      {erasure !== null && (
        <p class="muted" role="status" aria-label="Erasure">
          {erasure.status === 'done'
            ? `Erased: ${erasure.redisKeys} Redis keys and ${erasure.redisMembers} members, ${erasure.archivedEntries} archived entries redacted, ${erasure.postgresRows} other rows.`
            : 'Erasing: the user is gone from Redis; the workers are removing them from the leaderboards and from Postgres…'}
        </p>
      )}
      {said !== '' && <p class={said.startsWith('Exported') ? 'muted' : 'error'} role="alert">{said}</p>}
    </>
  );
}
