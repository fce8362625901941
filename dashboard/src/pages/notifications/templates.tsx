/**
 * Notification templates (/admin/v1/notifications/templates): the list, and one form that creates a
 * template or edits the one chosen, with its live preview (preview.tsx), and the user attribute
 * filters of the users it is sent to. The Admin API checks the Liquid texts; a refusal shows under
 * the field it names.
 */
import { useMemo, useState } from 'preact/hooks';
import { deleteOne, type Session } from '../../api.js';
import { FiltersField, type AttributeFilter } from '../../filters.js';
import { createFromForm, Field, fieldSetter, KeyField, updateFromForm } from '../../form.js';
import { useConfirm } from '../../confirm.js';
import { ItemTable, useActiveMetrics, useAttributes, useList } from '../../list.js';
import { typeWords } from '../../words.js';
import type { NotificationTemplateView as Template, PointsSystemAdminView } from '../../types.js';
import { Preview, sampleScope, type Texts } from './preview.js';


const TYPES = ['achievement_completed', 'streak_reminder', 'reactivation', 'recap'];
const FIELDS = ['subject', 'html', 'text', 'title', 'body', 'key', 'name', 'type', 'channel', 'status', 'userAttributes'];
const EMPTY = { key: '', name: '', type: 'achievement_completed', channel: 'email', status: 'active', subject: '', html: '', text: '', title: '', body: '' };

export function Templates({ session }: { session: Session }) {
  const list = useList<Template>(session, '/admin/v1/notifications/templates?limit=100');
  const metrics = useActiveMetrics(session);
  const systems = useList<PointsSystemAdminView>(session, '/admin/v1/points?limit=100').items;
  const scope = useMemo(() => sampleScope(metrics, systems ?? []), [metrics.length, systems]);
  const [editing, setEditing] = useState<Template | null>(null);
  const [form, setForm] = useState(EMPTY);
  const [filters, setFilters] = useState<AttributeFilter[]>([]);
  const users = useAttributes(session).user;
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [dialog, confirm] = useConfirm();
  const [done, setDone] = useState('');
  const set = fieldSetter(form, setForm);
  const texts: Texts = useMemo(() => ({ ...form, channel: form.channel as Texts['channel'] }), [form]);
  const edit = (t: Template | null) => {
    setEditing(t);
    setErrors({});
    setDone('');
    setFilters(t?.userAttributes ?? []);
    setForm(t === null ? EMPTY : {
      key: t.key, name: t.name, type: t.type, channel: t.channel, status: t.status,
      subject: t.subject ?? '', html: t.html ?? '', text: t.text ?? '', title: t.title ?? '', body: t.body ?? '',
    });
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setDone('');
    const orNull = (v: string) => (v === '' ? null : v);
    const channelFields = form.channel === 'email'
      ? { subject: orNull(form.subject), html: orNull(form.html), text: orNull(form.text), title: null, body: null }
      : { title: orNull(form.title), body: orNull(form.body), subject: null, html: null, text: null };
    const item = {
      key: form.key, name: form.name || form.key, type: form.type, channel: form.channel, status: form.status, ...channelFields, userAttributes: filters,
    };
    if (editing === null) {
      if (await createFromForm<Template>(session, '/admin/v1/notifications/templates', item, FIELDS, setErrors) === null) return;
      setForm(EMPTY);
      setFilters([]);
      setDone('Created.');
    } else {
      const updated = await updateFromForm<Template>(session, '/admin/v1/notifications/templates', { id: editing.id, ...item }, FIELDS, setErrors);
      if (updated === null) return;
      setEditing(updated);
      setDone('Saved.');
    }
    await list.reload();
  };
  const remove = async (t: Template) => {
    if (!await confirm({
      title: `Delete the template ${t.name || t.key}?`, action: 'Delete',
      body: <p>Its texts are gone. The {typeWords(t.type)} {t.channel === 'email' ? 'emails' : 'push notifications'} due from now on,
        the ones already scheduled too, go with another active template of that type and channel whose filters fit the user, or are not sent (<code>no_template</code>).</p>,
    })) return;
    const error = await deleteOne(session, '/admin/v1/notifications/templates', t.id);
    setErrors(error === '' ? {} : { list: error });
    if (error === '' && editing?.id === t.id) edit(null);
    await list.reload();
  };
  const email = form.channel === 'email';
  const area = (field: 'subject' | 'html' | 'text' | 'title' | 'body', label: string, rows: number) => (
    <Field id={`tpl-${field}`} label={label} error={errors[field]}>
      {rows === 1
        ? <input id={`tpl-${field}`} value={form[field]} onInput={set(field)} />
        : <textarea id={`tpl-${field}`} rows={rows} value={form[field]} onInput={set(field)} />}
    </Field>
  );
  return (
    <>
      <ItemTable list={list} empty="No templates yet." label="Templates" class="templates"
        columns={[
          { head: 'Key', cell: (t) => <code>{t.key}</code> }, { head: 'Type', cell: (t) => typeWords(t.type) },
          { head: 'Channel', cell: (t) => t.channel }, { head: 'Status', cell: (t) => t.status },
        ]}
        actions={(t) => (
          <>
            <button type="button" class="small" aria-label={`Edit ${t.key}`} onClick={() => edit(t)}>Edit</button>
            <button type="button" class="small danger" aria-label={`Delete ${t.key}`} onClick={() => remove(t)}>Delete</button>
          </>
        )} />
      <p class="error" role="alert">{errors.list ?? ''}</p>
      <div class="card template-editor">
        <form onSubmit={submit} aria-label={editing === null ? 'New template' : `Template ${editing.key}`}>
          <h2>{editing === null ? 'New template' : `Edit ${editing.key}`}
            {editing !== null && <button type="button" class="small" onClick={() => edit(null)}>New template instead</button>}</h2>
          <div class="row">
            <KeyField id="tpl-key" value={form.key} error={errors.key} onInput={set('key')} />
            <Field id="tpl-type" label="Sent on" error={errors.type}>
              <select id="tpl-type" value={form.type} onChange={set('type')}>{TYPES.map((t) => <option key={t} value={t}>{typeWords(t)}</option>)}</select>
            </Field>
            <Field id="tpl-channel" label="Channel" error={errors.channel}>
              <select id="tpl-channel" value={form.channel} onChange={set('channel')}><option value="email">Email</option><option value="push">Push</option></select>
            </Field>
            <Field id="tpl-status" label="Status" error={errors.status}>
              <select id="tpl-status" value={form.status} onChange={set('status')}><option value="active">Active</option><option value="inactive">Inactive</option></select>
            </Field>
          </div>
          {email ? <>{area('subject', 'Subject', 1)}{area('text', 'Text part', 4)}{area('html', 'HTML part', 6)}</>
            : <>{area('title', 'Title', 1)}{area('body', 'Body', 3)}</>}
          <FiltersField id="tpl-userAttributes" label="Only to users with" attributes={users} value={filters} onChange={setFilters}
            error={errors.userAttributes} none="For every user. Of the active templates of a type and channel that match a user, the first made is sent." />
          <p class="error" role="alert">{errors.form ?? ''}</p>
          <p class="muted" role="status">{done}</p>
          <button type="submit">{editing === null ? 'Create template' : 'Save template'}</button>
        </form>
        <Preview texts={texts} scope={scope} />
      </div>
      {dialog}
    </>
  );
}
