/**
 * The audit log's recorder in an api process (docs/api.md, "Audit log"): an Admin API write,
 * once answered (src/http/audit.ts), becomes an entry (src/domain/audit.ts) queued in Redis
 * (src/redis/audit.ts), which the workers copy into Postgres (src/engine/audit/drain.ts). The
 * answer never waits for it: the entry is made after it is written, and queued with the others
 * made within FLUSH_MS in one round trip to Redis (one per write cost a write more than the
 * entry itself: docs/performance.md, "What the data rights cost"). An entry Redis does not take
 * is logged in full, as an error: never lost without a word; a process stopping queues what it
 * holds first (settle).
 */
import { answerIds, auditBody, type AuditEntry } from '../../domain/audit.js';
import { uuidv7 } from '../../domain/ids.js';
import { queueAuditEntries } from '../../redis/audit.js';
import type { Context } from '../context.js';

/** An Admin API write as answered. */
export interface AnsweredWrite {
  /** The request's id (src/http/request-id.ts). */
  requestId: string;
  keyId: string;
  /** The tenant it acted for (storage id), or null for the whole account. */
  tenantId: string | null;
  /** `PATCH /admin/v1/metrics`: the method and the route's template. */
  operation: string;
  /** The path's parameters, decoded. */
  pathIds: string[];
  /** The request body as sent, or null. */
  body: string | null;
  status: number;
  /** The answer's body. */
  answer: string;
}

type Deps = Pick<Context, 'redis' | 'keys' | 'clock' | 'store' | 'log'>;

/** How long an entry waits for others to be queued with (ms), and the most queued at once. */
const FLUSH_MS = 20;
const FLUSH_AT = 100;

export class AuditRecorder {
  private readonly deps: Deps;
  /** Every key's name this process has seen, so that a key deleted by its own request is still named. */
  private readonly names = new Map<string, string>();
  private readonly queued = new Set<Promise<void>>();
  /** Entries made and not yet sent, and the timer that sends them. */
  private held: AuditEntry[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(deps: Deps) {
    this.deps = deps;
    const learn = (keys: Iterable<{ id: string; name: string }>) => { for (const k of keys) this.names.set(k.id, k.name); };
    learn(deps.store.current.apiKeys.values());
    deps.store.onChange((s) => learn(s.apiKeys.values()));
  }

  /** Makes the write's entry and queues it (without waiting: within FLUSH_MS). */
  record(w: AnsweredWrite): void {
    const answered = w.status < 300 ? answerIds(w.answer) : [];
    const entry: AuditEntry = {
      id: uuidv7(), at: this.deps.clock.now(), keyId: w.keyId,
      keyName: this.deps.store.current.apiKeys.get(w.keyId)?.name ?? this.names.get(w.keyId) ?? '',
      tenantId: w.tenantId, operation: w.operation, ids: answered.length > 0 ? answered : w.pathIds,
      body: auditBody(w.body), status: w.status, requestId: w.requestId,
    };
    this.held.push(entry);
    if (this.held.length >= FLUSH_AT) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Sends the entries held. */
  private flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const entries = this.held;
    if (entries.length === 0) return;
    this.held = [];
    const notTaken = (err: unknown, entry: AuditEntry) =>
      this.deps.log.error({ err, audit: entry }, 'audit entry not queued (Redis refused it): it is in this line only');
    const queued = queueAuditEntries(this.deps.redis, this.deps.keys.auditQueue, entries).then(
      (errors) => errors.forEach((err, i) => { if (err !== null) notTaken(err, entries[i]); }),
      (err: unknown) => entries.forEach((entry) => notTaken(err, entry)),
    );
    this.queued.add(queued);
    void queued.finally(() => this.queued.delete(queued));
  }

  /** Resolves once every entry made so far is queued (or logged): before Redis's connection closes. */
  async settle(): Promise<void> {
    this.flush();
    await Promise.all([...this.queued]);
  }
}
