/**
 * What the log drainer reads of an event entry for the notifications' due index without parsing
 * it (src/model/log.ts eventActivity) must be what parsing it gives (activityOf), for any user id,
 * attributes, idempotency key and identification; the due members it makes of it must be the
 * ones dueMember writes, which the notifier parses back; and what a drainer has written (in the
 * real Redis) is not written again.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { activityOf, entryBody, eventActivity, eventEntry, type EventActivity, type LogBody } from '../../src/model/log.js';
import { Redis } from 'ioredis';
import {
  dueMember, dueMemberText, parseDueMember, reactivationScore, recapIndexed, reminderScore,
} from '../../src/domain/notifications/due-members.js';
import { noteDue, noteEntry, NotedDays, type DueNotes, type PartitionDue } from '../../src/engine/notifications/due-index.js';
import type { Context } from '../../src/engine/context.js';
import type { Snapshot } from '../../src/model/snapshot.js';
import { streakLast } from '../../src/domain/streaks/state.js';

/** Any text, and often the characters JSON escapes. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: fc.constantFrom('"', '\\', 'a', ',', ':', '\u0000', '\n', 'é', '\ud800'), maxLength: 12 }),
);

/** An event entry as XRANGE answers it: kind, body, then the fields the script adds. */
const entries = fc.record({
  userId: text,
  tenant: fc.constantFrom('', 'acme', 't-1'),
  idempotencyKey: fc.oneof(fc.constant(''), text),
  attributes: fc.option(fc.dictionary(text, text, { maxKeys: 3 }), { nil: undefined }),
  identification: fc.option(fc.record({ name: text, tz: fc.constantFrom('UTC', 'Pacific/Kiritimati') }), { nil: undefined }),
  day: fc.constantFrom('2026-01-01', '2026-11-25', '2028-02-29'),
  sx: fc.option(fc.constantFrom('d|3|20000|19998|1|20000|3||Europe/London||19998', 'w|1|2900|2900||||||', 'd|0||||||||'), { nil: undefined }),
  ac: fc.boolean(),
}).map((r) => {
  const body = eventEntry({
    eventId: '01a2047c-d24e-700e-b515-63c06d722d8e', tenant: r.tenant, userId: r.userId, metricId: '5f1e0000-0000-4000-8000-000000000000',
    value: '1', ts: 1_790_000_000_000, day: r.day, idempotencyKey: r.idempotencyKey,
    attributesJson: r.attributes === undefined ? '' : JSON.stringify(r.attributes), processId: 'p1', tz: r.identification?.tz ?? '',
    identificationJson: r.identification === undefined ? '' : JSON.stringify(r.identification),
  });
  const fields = ['event', body];
  if (r.sx !== undefined) fields.push('sx', r.sx, 'sp', '[]');
  fields.push('pa', '[["s","t",10,10,1,""]]');
  if (r.ac) fields.push('ac', '["a1"]');
  return { fields, userId: r.userId, tenant: r.tenant };
});

describe('an event entry read without parsing it', () => {
  it('says what parsing it says', () => {
    fc.assert(fc.property(entries, ({ fields, userId, tenant }) => {
      const parsed = JSON.parse(entryBody(fields)) as LogBody;
      const read = eventActivity(fields);
      expect(read).not.toBeNull();
      expect(read).toEqual(activityOf(parsed));
      expect(read!.userJson).toBe(JSON.stringify(userId));
      expect(read!.tenant).toBe(tenant);
    }), { numRuns: 3000 });
  });

  it('makes the members dueMember makes, which parse back', () => {
    fc.assert(fc.property(entries, ({ fields, userId, tenant }) => {
      const a = eventActivity(fields)!;
      const tenantJson = JSON.stringify(a.tenant);
      for (const kind of ['s', 'r'] as const) {
        const member = dueMemberText(kind, tenantJson, a.userJson);
        expect(member).toBe(dueMember({ kind, tenant, userId, occasion: '' }));
        expect(parseDueMember(member)).toEqual({ kind, tenant, userId, occasion: '' });
      }
      const recap = dueMemberText('c', tenantJson, a.userJson, 'recap:2026-11-23');
      expect(recap).toBe(dueMember({ kind: 'c', tenant, userId, occasion: 'recap:2026-11-23' }));
    }), { numRuns: 2000 });
  });

  it('leaves a body of another form to be parsed', () => {
    // An older entry with its streak inside the body, and bodies not written by eventEntry.
    expect(eventActivity(['event', '{"e":"x","t":"a","u":"u1","m":"m","v":1,"ts":1,"d":"2026-01-01","sx":[1,1,20000,0,""]}'])).toBeNull();
    expect(eventActivity(['event', '{"t":"a","u":"u1","ts":1}'])).toBeNull();
    expect(eventActivity(['event', '{"e":"x","t":"a","u":"u1"'])).toBeNull();
    expect(eventActivity(['event'])).toBeNull();
  });

  it('finds the last period of a streak under way, in its frequency only', () => {
    expect(streakLast('d|3|20000|19998|1|20000|3||Europe/London||19998', 'daily')).toBe(20000);
    expect(streakLast('d|3|20000|19998|1|20000|3||Europe/London||19998', 'weekly')).toBeNull();
    expect(streakLast('d|0||||||||', 'daily')).toBeNull();
    expect(streakLast('', 'daily')).toBeNull();
  });
});

describe('the due members of an activity', () => {
  const snapshot = { streak: { frequency: 'daily' }, notifications: { recap: { aggregation: 'weekly' } } } as unknown as Snapshot;
  const wanted = { reminders: true, reactivations: true, recaps: true };
  const activity = (day: string, sx?: string): EventActivity => ({ tenant: 'acme', userJson: '"u1"', day, sx });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true });
  const key = `test-due-${process.pid}-${Date.now()}:{p1}:ndue`;
  const deps = { redis, keys: { partitionNotificationsDue: () => key } } as unknown as Pick<Context, 'redis' | 'keys'>;
  const index = async () => Object.fromEntries(chunks(await redis.zrange(key, 0, -1, 'WITHSCORES')));
  afterAll(async () => { await redis.del(key); redis.disconnect(); });

  it('notes each kind of member an event calls for; of a member named twice the later score stays, an earlier period\'s recap beside the later one', async () => {
    const out: PartitionDue = [];
    noteEntry(snapshot, wanted, activity('2026-11-22', 'd|1|20414|20414|||1||||20414'), out);
    noteEntry(snapshot, wanted, activity('2026-11-23', 'd|2|20415|20414|||2||||20414'), out);
    expect(out).toHaveLength(12);
    await noteDue(deps, 1, out);
    expect(await index()).toEqual({
      '["s","acme","u1"]': String(reminderScore('daily', 20416)),
      '["r","acme","u1"]': String(reactivationScore('2026-11-23')),
      '["c","acme","u1","recap:2026-11-16"]': String(recapIndexed('weekly', '2026-11-22').score),
      '["c","acme","u1","recap:2026-11-23"]': String(recapIndexed('weekly', '2026-11-23').score),
    });
  });

  it('leaves out what the drainer wrote and what the pass noted: a user\'s later events of a day add nothing', async () => {
    await redis.del(key);
    const written = new NotedDays(10);
    const pass1: DueNotes = { written, pass: new NotedDays() };
    const first: PartitionDue = [];
    noteEntry(snapshot, wanted, activity('2026-11-24', 'd|1|20416|20416|||1||||20416'), first, pass1);
    expect(first).toHaveLength(6);
    // The same day again in the same pass: nothing (no extension: no reminder; the absence and the recap noted).
    noteEntry(snapshot, wanted, activity('2026-11-24'), first, pass1);
    expect(first).toHaveLength(6);
    // Until the pass's writes are done, another pass writes them too (the first may fail yet).
    const beside: PartitionDue = [];
    noteEntry(snapshot, wanted, activity('2026-11-24'), beside, { written, pass: new NotedDays() });
    expect(beside).toHaveLength(4);
    await noteDue(deps, 1, first);
    pass1.pass.addTo(written);
    // Written: a later pass's event of that day adds nothing; of the next day all three again.
    const pass2: DueNotes = { written, pass: new NotedDays() };
    const next: PartitionDue = [];
    noteEntry(snapshot, wanted, activity('2026-11-24'), next, pass2);
    expect(next).toHaveLength(0);
    noteEntry(snapshot, wanted, activity('2026-11-25', 'd|2|20417|20416|||2||||20416'), next, pass2);
    expect(next).toHaveLength(6);
    await noteDue(deps, 1, next);
    const latest = {
      '["s","acme","u1"]': String(reminderScore('daily', 20418)),
      '["r","acme","u1"]': String(reactivationScore('2026-11-25')),
      '["c","acme","u1","recap:2026-11-23"]': String(recapIndexed('weekly', '2026-11-24').score),
    };
    expect(await index()).toEqual(latest);
    // Without the drainer's memory the day before writes its members again: ZADD GT changes nothing.
    const plain: PartitionDue = [];
    noteEntry(snapshot, wanted, activity('2026-11-24', 'd|1|20416|20416|||1||||20416'), plain);
    await noteDue(deps, 1, plain);
    expect(await index()).toEqual(latest);
  });

  it('writes every member of a partition noted at a restore\'s size (20,000, in several commands)', async () => {
    await redis.del(key);
    const out: PartitionDue = [];
    for (let i = 0; i < 20_000; i++) noteEntry(snapshot, { reminders: false, reactivations: true, recaps: false }, { ...activity('2026-11-24'), userJson: `"u${i}"` }, out);
    await noteDue(deps, 1, out);
    expect(await redis.zcard(key)).toBe(20_000);
  });
});

describe('the days a drainer noted', () => {
  it('knows a user\'s day per tenant, and starts over past its bound', () => {
    const noted = new NotedDays(2);
    noted.note('a', '"u1"', '2026-11-24');
    expect(noted.has('a', '"u1"', '2026-11-24')).toBe(true);
    expect(noted.has('b', '"u1"', '2026-11-24')).toBe(false);
    expect(noted.has('a', '"u1"', '2026-11-25')).toBe(false);
    noted.note('b', '"u1"', '2026-11-24');
    noted.note('a', '"u1"', '2026-11-25');
    expect(noted.has('a', '"u1"', '2026-11-25')).toBe(true);
    expect(noted.has('b', '"u1"', '2026-11-24')).toBe(true);
    // A third user: over the bound, all forgotten but the one just noted.
    noted.note('a', '"u2"', '2026-11-25');
    expect(noted.has('a', '"u2"', '2026-11-25')).toBe(true);
    expect(noted.has('a', '"u1"', '2026-11-25')).toBe(false);
    const into = new NotedDays();
    noted.addTo(into);
    expect(into.has('a', '"u2"', '2026-11-25')).toBe(true);
  });
});

function chunks(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}
