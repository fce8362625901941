/**
 * Keys scoped to one user (/admin/v1/application-api-keys): a key that acts for one user only, in
 * the tenant chosen in the header, for an app calling laurel from the user's device. Made by user
 * id, shown once with its id; the Admin API lists none, so one is revoked by its id (those made on
 * this page are listed until it closes, each with Revoke, asked first). Refusals under their fields.
 */
import { useState } from 'preact/hooks';
import { deleteOne, type Session } from '../../api.js';
import { useConfirm } from '../../confirm.js';
import { createFromForm, Field } from '../../form.js';
import type { UserKeyView as UserKey } from '../../types.js';


const PATH = '/admin/v1/application-api-keys';

export function UserKeys({ session }: { session: Session }) {
  const [userId, setUserId] = useState('');
  const [keyId, setKeyId] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [made, setMade] = useState<UserKey[]>([]);
  const [fresh, setFresh] = useState<UserKey | null>(null);
  const [done, setDone] = useState('');
  const [dialog, confirm] = useConfirm();
  const create = async (e: Event) => {
    e.preventDefault();
    setFresh(null);
    setDone('');
    const created = await createFromForm<UserKey>(session, PATH, { userId }, ['userId'], setErrors);
    if (created === null) return;
    setFresh(created);
    setMade([created, ...made]);
    setUserId('');
  };
  const revoke = async (id: string) => {
    const k = made.find((m) => m.id === id);
    if (!await confirm({
      title: `Revoke the user key ${id}?`, action: 'Revoke',
      body: <p>The app that calls laurel with it{k === undefined ? '' : ` for ${k.userId}`} is refused (401) at once; a revoked key cannot be brought back.</p>,
    })) return;
    setDone('');
    let error: string;
    try {
      error = await deleteOne(session, PATH, id);
    } catch (err) {
      error = (err as Error).message;
    }
    setErrors({ keyId: error });
    if (error !== '') return;
    setMade(made.filter((k) => k.id !== id));
    if (fresh?.id === id) setFresh(null);
    setKeyId('');
    setDone(`Key ${id} revoked.`);
  };
  return (
    <section class="card" aria-label="Keys for one user">
      <h2>Keys for one user</h2>
      <p class="muted">A key that acts for one user only (its data, and what every user sees), in the tenant chosen above: for an app
        that calls laurel from the user's device. laurel lists none of them: keep a key's id to revoke it.</p>
      <form class="row" onSubmit={create} aria-label="New user key">
        <Field id="user-key-user" label="For the user (id)" error={errors.userId ?? errors.form}>
          <input id="user-key-user" value={userId} required onInput={(e) => setUserId(e.currentTarget.value)} />
        </Field>
        <button type="submit">Create user key</button>
      </form>
      {fresh !== null && (
        <div class="card secret" role="region" aria-label="The new user key">
          <h2>The key for {fresh.userId}</h2>
          <p><code id="new-user-key">{fresh.key}</code></p>
          <p>Its id (to revoke it): <code id="new-user-key-id">{fresh.id}</code></p>
          <p><strong>Copy it now:</strong> laurel keeps only its hash, and will not show it again.</p>
          <button type="button" class="small" onClick={() => setFresh(null)}>I have copied it</button>
        </div>
      )}
      <form class="row" onSubmit={(e) => { e.preventDefault(); void revoke(keyId.trim()); }} aria-label="Revoke a user key">
        <Field id="user-key-id" label="Key id" error={errors.keyId}>
          <input id="user-key-id" value={keyId} required onInput={(e) => setKeyId(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="danger">Revoke user key</button>
      </form>
      <p class="muted" role="status">{done}</p>
      {made.length > 0 && (
        <table class="user-keys">
          <caption class="muted">Made on this page</caption>
          <thead><tr><th>User</th><th>Key id</th><th>Starts with</th><th></th></tr></thead>
          <tbody>{made.map((k) => (
            <tr key={k.id}>
              <td>{k.userId}</td><td><code>{k.id}</code></td><td><code>{k.prefix.replace(/…$/, '')}…</code></td>
              <td><button type="button" class="small danger" aria-label={`Revoke the key of ${k.userId} ${k.id}`} onClick={() => revoke(k.id)}>Revoke</button></td>
            </tr>
          ))}</tbody>
        </table>
      )}
      {dialog}
    </section>
  );
}
