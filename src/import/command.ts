/**
 * `laurel import <file> --url <base> --key <admin key> [--tenant <id>] [--part <events>]`
 * (docs/api.md, "History import"): a history file (src/import/history.ts) checked part by part
 * (`?check=true`: a file the import would refuse applies nothing), then sent in the order its
 * events happened, each part once the one before the last is applied (the batch queues hold two
 * parts of it at most; a 503 of a full backlog is waited out as its Retry-After says), its
 * progress drawn as it goes. Exit 0 when every event was applied; 1 when the file, an option or a
 * part was refused, or an event failed (a part refused after the check leaves those before it
 * applied, and says so).
 */
import { parseOptions } from '../lib/cli-options.js';
import { MAX_IMPORT_ITEMS } from '../domain/import.js';
import { httpCall, HttpCallError, type HttpAnswer } from '../lib/http-call.js';
import { SettingsError } from '../lib/settings.js';
import { HistoryError, partsOf, readHistory, whereOf, type History, type Part } from './history.js';

export const IMPORT_USAGE = 'laurel import <file> --url <base> --key <admin key> [--tenant <id>] [--part <events>]';

/** What `laurel import --help` says beyond its usage. */
const IMPORT_HELP = `Imports a file of past events (NDJSON, one event a line, or a JSON array) into the installation at
--url with the admin key --key (--tenant: a tenant's customerId): every part is checked first, so a
file the import would refuse applies nothing; then the parts are sent in the order the events
happened (--part: events a part, at most 10,000), and the progress drawn.
Exit 0 once every event is applied; 1 when the file or an option is refused, or an event failed.
`;

/** A part's bytes at most: half the server's default import body limit. */
const PART_BYTES = 4 * 1024 * 1024;
/** How often an import's progress is read. */
const POLL_MS = 200;
/** A request's answer waited for, at most. */
const REQUEST_MS = 60_000;
/** The issues printed at the end, at most. */
const ISSUES_SHOWN = 20;

interface Target {
  url: string;
  key: string;
  tenant: string | undefined;
}

interface Progress {
  accepted: number;
  processed: number;
  failed: number;
  issues: { index: number; message: string }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(t: Target, method: string, path: string, body?: string): Promise<HttpAnswer> {
  const headers: Record<string, string> = { 'X-API-KEY': t.key };
  if (body !== undefined) headers['Content-Type'] = 'application/x-ndjson';
  if (t.tenant !== undefined) headers['Tenant-ID'] = t.tenant;
  try {
    return await httpCall(`${t.url}${path}`, method, headers, body, REQUEST_MS);
  } catch (err) {
    throw err instanceof HttpCallError ? new HistoryError(err.message) : err;
  }
}

/** A progress bar of `done` of `total`, 36 characters wide. */
export function bar(done: number, failed: number, total: number): string {
  const filled = total === 0 ? 36 : Math.floor((36 * done) / total);
  return `[${'#'.repeat(filled)}${'-'.repeat(36 - filled)}] ${done.toLocaleString('en')} / ${total.toLocaleString('en')} done, ${failed.toLocaleString('en')} failed`;
}

/**
 * A refusal of a part, its item named by its place in the file: the server names it by its index
 * in the part (`Item 3:`) or, the part being sent as NDJSON, by its line there (`Line 4:`).
 */
function refusal(r: HttpAnswer, kind: History['kind'], part: Part, n: number): string {
  const place = (i: number) => (part[i] === undefined ? `item ${i}` : whereOf(kind, part[i]));
  const message = String(r.body?.error ?? r.text.slice(0, 300))
    .replace(/^Item (\d+):/, (_, i: string) => `${place(Number(i))}:`)
    .replace(/^Line (\d+):/, (_, l: string) => `${place(Number(l) - 1)}:`);
  return `part ${n} refused (HTTP ${r.status}${r.body?.code ? ` ${r.body.code}` : ''}): ${message}`;
}

/**
 * Sends one part (waiting out a full backlog) and answers its import id; `check`: only checks it
 * (the server accepts nothing) and answers ''. A refusal throws.
 */
async function send(t: Target, kind: History['kind'], part: Part, n: number, check = false): Promise<string> {
  const body = part.map((i) => i.json).join('\n');
  for (;;) {
    const r = await call(t, 'POST', check ? '/admin/v1/import?check=true' : '/admin/v1/import', body);
    if (check && r.status === 200) return '';
    if (!check && r.status === 202 && typeof r.body?.importId === 'string') return r.body.importId as string;
    if (r.status === 503) {
      await sleep((Number(r.headers.get('retry-after') ?? '1') || 1) * 1000);
      continue;
    }
    throw new HistoryError(refusal(r, kind, part, n));
  }
}

export async function importCommand(args: string[], write: (text: string) => void = (s) => process.stdout.write(s), tty = process.stdout.isTTY === true): Promise<number> {
  const file = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : undefined;
  let target: Target;
  let part: number;
  try {
    const options = parseOptions(file === undefined ? args : args.slice(1), { usage: IMPORT_USAGE, values: ['--url', '--key', '--tenant', '--part'] });
    if (options.help) {
      write(`usage: ${IMPORT_USAGE}\n\n${IMPORT_HELP}`);
      return 0;
    }
    const url = options.values.get('--url');
    const key = options.values.get('--key');
    if (file === undefined || url === undefined || key === undefined) throw new SettingsError(`a file, --url and --key are needed\nusage: ${IMPORT_USAGE}`);
    target = { url: url.replace(/\/+$/, ''), key, tenant: options.values.get('--tenant') };
    part = Number(options.values.get('--part') ?? MAX_IMPORT_ITEMS);
    if (!Number.isInteger(part) || part < 1 || part > MAX_IMPORT_ITEMS) throw new SettingsError(`--part must be an integer from 1 to ${MAX_IMPORT_ITEMS}\nusage: ${IMPORT_USAGE}`);
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    write(`laurel import: ${err.message}\n`);
    return 1;
  }
  let accepted = 0;
  try {
    const { kind, items } = await readHistory(file);
    const parts = partsOf(items, PART_BYTES, part);
    // Every part checked before any is sent: a file the import would refuse applies nothing.
    write(`checking ${items.length.toLocaleString('en')} events from ${file} in ${parts.length} part${parts.length === 1 ? '' : 's'}\n`);
    for (let n = 0; n < parts.length; n++) await send(target, kind, parts[n], n + 1, true);
    write(`importing them\n`);
    let done = 0;
    let failed = 0;
    const issues: string[] = [];
    /** The part sent before the one the workers apply now, if any. */
    let waiting: { importId: string; part: Part; n: number } | null = null;
    /** Waits until the workers have applied a part sent (reading its progress), and counts it. */
    const applied = async ({ importId, part, n }: { importId: string; part: Part; n: number }) => {
      let p: Progress;
      for (;;) {
        const r = await call(target, 'GET', `/admin/v1/import/${importId}`);
        if (r.status !== 200) throw new HistoryError(`reading the progress of part ${n} (${importId}): HTTP ${r.status} ${r.text.slice(0, 300)}`);
        p = r.body as Progress;
        const over = p.processed + p.failed >= p.accepted;
        // On a terminal, the bar drawn again in place at each read.
        if (tty) write(`\r${bar(done + p.processed + p.failed, failed + p.failed, items.length)}`);
        if (over) break;
        await sleep(POLL_MS);
      }
      done += p.processed + p.failed;
      failed += p.failed;
      for (const issue of p.issues) issues.push(`${part[issue.index] === undefined ? `item ${issue.index}` : whereOf(kind, part[issue.index])}: ${issue.message}`);
      if (!tty) write(`${bar(done, failed, items.length)}\n`);
    };
    // Two parts at most in the queues: the next one sent while the workers apply one (a user's
    // items of two imports are applied in the order the imports were accepted).
    for (let n = 0; n < parts.length; n++) {
      const importId = await send(target, kind, parts[n], n + 1);
      accepted += parts[n].length;
      if (waiting !== null) await applied(waiting);
      waiting = { importId, part: parts[n], n: n + 1 };
    }
    if (waiting !== null) await applied(waiting);
    if (tty) write('\n');
    for (const line of issues.slice(0, ISSUES_SHOWN)) write(`  ${line}\n`);
    if (issues.length > ISSUES_SHOWN) write(`  and ${issues.length - ISSUES_SHOWN} more\n`);
    write(failed === 0 ? `imported ${done.toLocaleString('en')} events\n` : `imported ${(done - failed).toLocaleString('en')} events; ${failed.toLocaleString('en')} failed\n`);
    return failed === 0 ? 0 : 1;
  } catch (err) {
    if (!(err instanceof HistoryError)) throw err;
    write(`${tty ? '\n' : ''}laurel import: ${err.message}\n`);
    // A part refused after the check (the configuration changed meanwhile, the server went away):
    // what was accepted before it stays, and is applied.
    if (accepted > 0) write(`laurel import: the ${accepted.toLocaleString('en')} events of the parts before it were accepted and are applied; send the rest again from there (items with an idempotencyKey apply once)\n`);
    return 1;
  }
}
