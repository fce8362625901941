/**
 * A template's live preview: its texts rendered in the browser by liquidjs (the server's engine,
 * with its options: strict filters, own properties only, HTML output escaped in the html part)
 * with a sample user and the variables of its type (docs/notifications.md). liquidjs is loaded when
 * the preview first shows (its own chunk). The html part shows in a sandboxed frame.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Texts {
  type: string;
  channel: 'email' | 'push';
  subject: string;
  html: string;
  text: string;
  title: string;
  body: string;
}

type Engines = { plain: import('liquidjs').Liquid; html: import('liquidjs').Liquid };
let engines: Promise<Engines> | null = null;
const loadEngines = () => engines ??= import('liquidjs').then(({ Liquid }) => {
  const options = { templates: {}, strictFilters: true, ownPropertyOnly: true };
  return { plain: new Liquid(options), html: new Liquid({ ...options, outputEscape: 'escape' }) };
});

/** The sample scope: a user, the account's metrics and points systems, and each type's variables. */
export function sampleScope(metrics: { key: string; name: string }[], systems: { key: string; name: string }[]): Record<string, unknown> {
  const achievement = { id: 'a1', key: 'first-lesson', name: 'First lesson', description: 'Finished a first lesson', badgeUrl: null, achievedAt: '2026-06-01T10:00:00Z' };
  const streak = { length: 5, frequency: 'daily', started: '2026-05-28', periodStart: '2026-06-01', periodEnd: '2026-06-01', expires: '2026-06-02' };
  const byKey = (list: { key: string; name: string }[], total: number) => Object.fromEntries(list.map((x) => [x.key, { name: x.name, total, change: 3 }]));
  return {
    user: { id: 'ada', name: 'Ada', email: 'ada@example.com', tz: 'Europe/London', attributes: {} },
    metrics: byKey(metrics, 12), points: byKey(systems, 120),
    unsubscribeUrl: 'https://laurel.example/unsubscribe', preferencesUrl: 'https://laurel.example/preferences',
    achievement, achievements: [achievement], streak, reactivation: { messageNumber: 1, daysSinceLastActive: 3 },
    recap: { periodStart: '2026-05-25', periodEnd: '2026-05-31', aggregation: 'weekly', metrics: byKey(metrics, 12), points: byKey(systems, 120), achievements: [achievement] },
  };
}

export function Preview({ texts, scope }: { texts: Texts; scope: Record<string, unknown> }) {
  const [out, setOut] = useState<{ parts: [string, string][]; error: string } | null>(null);
  useEffect(() => {
    let live = true;
    const fields = texts.channel === 'email' ? (['subject', 'text', 'html'] as const) : (['title', 'body'] as const);
    void loadEngines().then(async (e) => {
      const parts: [string, string][] = [];
      let error = '';
      for (const f of fields) {
        try {
          parts.push([f, texts[f] === '' ? '' : String(await (f === 'html' ? e.html : e.plain).parseAndRender(texts[f], scope))]);
        } catch (err) {
          error ||= `${f}: ${(err as Error).message.split('\n')[0]}`;
        }
      }
      if (live) setOut({ parts, error });
    });
    return () => { live = false; };
  }, [texts, scope]);
  return (
    <div class="preview" role="region" aria-label="Preview">
      <h3>Preview, for a sample user</h3>
      <p class="error" role="alert">{out?.error ?? ''}</p>
      {out === null ? <p class="muted">Loading…</p> : out.parts.map(([f, value]) => (
        f === 'html'
          ? <iframe key={f} title="The html part" sandbox="" srcdoc={value} class="preview-html" />
          : <p key={f} class={`preview-${f}`}><strong>{f}:</strong> {value === '' ? <span class="muted">(empty)</span> : value}</p>
      ))}
    </div>
  );
}
