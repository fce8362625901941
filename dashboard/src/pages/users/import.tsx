/**
 * A history imported from the Users page (docs/dashboard.md, "Users"; docs/api.md, "History
 * import"): a file of past events (NDJSON, or a JSON array; 10,000 events at most, larger ones go
 * through `laurel import`) sent to POST /admin/v1/import, its refusal under the file, then its
 * progress followed (GET /admin/v1/import/:importId) until the workers have applied it, each event
 * that failed listed.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, type Session } from '../../api.js';
import { Field } from '../../form.js';

interface Progress {
  accepted: number;
  processed: number;
  failed: number;
  issues: { index: number; message: string }[];
}

/** How often an import under way is asked about (ms). */
const FOLLOW_MS = 1000;

/** Sends the file's text as it is: a JSON array as JSON, anything else as NDJSON. */
async function sendFile(session: Session, text: string): Promise<{ importId: string; accepted: number }> {
  const headers: Record<string, string> = { 'X-API-KEY': session.key, 'Content-Type': /^\s*\[/.test(text) ? 'application/json' : 'application/x-ndjson' };
  if (session.tenant !== '') headers['Tenant-ID'] = session.tenant;
  const res = await fetch('/admin/v1/import', { method: 'POST', headers, body: text });
  const body = (await res.json().catch(() => null)) as { importId?: string; accepted?: number; error?: string } | null;
  if (res.status >= 400 || body?.importId === undefined) throw new ApiError(res.status, body?.error ?? `HTTP ${res.status}`);
  return { importId: body.importId, accepted: body.accepted ?? 0 };
}

export function ImportHistory({ session }: { session: Session }) {
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [running, setRunning] = useState<{ id: string; name: string; progress: Progress } | null>(null);
  const done = running !== null && running.progress.processed + running.progress.failed >= running.progress.accepted;
  // An import under way followed until the workers have applied every event.
  useEffect(() => {
    if (running === null || done) return;
    const timer = setTimeout(() => {
      call<Progress>(session, 'GET', `/admin/v1/import/${running.id}`)
        .then((r) => setRunning({ ...running, progress: r.body }), (err: Error) => setError(err.message));
    }, FOLLOW_MS);
    return () => clearTimeout(timer);
  }, [running]);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (file === null) return;
    setError('');
    setBusy(true);
    try {
      const { importId, accepted } = await sendFile(session, await file.text());
      setRunning({ id: importId, name: file.name, progress: { accepted, processed: 0, failed: 0, issues: [] } });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const p = running?.progress;
  return (
    <form class="card" aria-label="Import history" onSubmit={(e) => void submit(e)}>
      <h2>Import history</h2>
      <p class="muted">Past events, each with its <code>occurredAt</code> (NDJSON or a JSON array, up to 10,000: <code>laurel import</code> takes any size), counted when they happened and told to no one: no webhook, notification or live update.</p>
      <div class="row">
        <Field id="import-file" label="File of events" error={error}>
          <input id="import-file" type="file" accept=".ndjson,.jsonl,.json,application/json,application/x-ndjson" required
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        </Field>
        <button type="submit" disabled={busy || file === null || (running !== null && !done)}>Import</button>
      </div>
      {running !== null && p !== undefined && (
        <div aria-label="Import progress">
          <progress max={p.accepted} value={p.processed + p.failed} />
          <p class="muted" role="status">
            {`${running.name}: ${(p.processed + p.failed).toLocaleString('en')} of ${p.accepted.toLocaleString('en')} applied, ${p.failed.toLocaleString('en')} failed${done ? '. Done.' : '…'}`}
          </p>
          {p.issues.length > 0 && <ul class="error">{p.issues.map((i) => <li key={i.index}>{`Event ${i.index}: ${i.message}`}</li>)}</ul>}
        </div>
      )}
    </form>
  );
}
