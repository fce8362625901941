/**
 * What an admin does to users' streaks: grant one freeze each (POST /admin/v1/streaks/freezes) or
 * restore their lost streaks (POST /admin/v1/streaks/restore), for the users listed; the per-user
 * issues of the answer shown under the field.
 */
import { useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import { Field } from '../../form.js';
import type { BulkIssue } from '../../types.js';

export function StreakUsers({ session }: { session: Session }) {
  const [ids, setIds] = useState('');
  const [result, setResult] = useState({ done: '', error: '' });
  const users = () => [...new Set(ids.split(/[\s,]+/).filter(Boolean))];
  const run = async (what: 'freezes' | 'restore') => {
    const list = users();
    if (list.length === 0) return setResult({ done: '', error: 'Name one user or more.' });
    try {
      const body = what === 'freezes' ? { freezes: list.map((userId) => ({ userId })) } : { users: list.map((id) => ({ id })) };
      const r = await call<{ issues: BulkIssue[] }>(session, 'POST', `/admin/v1/streaks/${what}`, body);
      const refused = new Set(r.body.issues.filter((i) => i.severity === 'error').map((i) => i.userId));
      const ok = list.filter((u) => !refused.has(u));
      setResult({
        done: ok.length === 0 ? '' : `${what === 'freezes' ? 'A freeze granted to' : 'Streak restored for'} ${ok.join(', ')}.`,
        error: r.body.issues.map((i) => `${i.userId}: ${i.message}`).join('; '),
      });
      // All done: the field empties (the line above names them); a refused user stays to correct.
      setIds(list.filter((u) => refused.has(u)).join(', '));
    } catch (err) {
      setResult({ done: '', error: (err as Error).message });
    }
  };
  return (
    <form class="card" aria-label="Users' streaks" onSubmit={(e) => { e.preventDefault(); void run('freezes'); }}>
      <h2>Users' streaks</h2>
      <Field id="streak-users" label="User ids (separated by commas)" error={result.error}>
        <input id="streak-users" value={ids} required onInput={(e) => setIds(e.currentTarget.value)} />
      </Field>
      <p class="muted" role="status">{result.done}</p>
      <span class="actions">
        <button type="submit">Grant a freeze</button>
        <button type="button" onClick={() => run('restore')}>Restore the streak</button>
      </span>
    </form>
  );
}
