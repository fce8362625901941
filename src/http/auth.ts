/**
 * API keys and tenants. Keys are stored as sha256 hashes and shown once. The guard finds the key
 * and hands it to the one authorization of every route (src/http/authorize.ts): an `admin` key
 * may call everything; an `application` key the Application API only; a key bound to a tenant
 * acts for that tenant only (without a Tenant-ID header too), whatever the route.
 *
 * A key scoped to one user (`lrl_usr_<id>.<secret>`, src/engine/keys/user-keys.ts) is bound to the
 * user's tenant and may call the Application API for its user only: each route says whose data it
 * touches (its `subject`, src/http/server.ts), and one that touches another user's, or says
 * nothing, is refused (403).
 *
 * With LAUREL_RATE_LIMIT every key of the account has a rate limit, and every key scoped to a user
 * has LAUREL_USER_KEY_RATE_LIMIT's unless it is `off` (src/engine/keys/rate-limit.ts): one more
 * Redis call per request of an account's key, none for a user-scoped key, whose own lookup takes
 * it. The operations endpoints take no key and have no limit.
 */
import { createHash, randomBytes } from 'node:crypto';
import { uuidv7 } from '../domain/ids.js';
import { fail } from '../lib/errors.js';
import { authorize, type Principal } from './authorize.js';
import type { Request, Route } from './server.js';
import type { ConfigStore } from '../config/store.js';
import type { Context } from '../engine/context.js';
import type { KeyLimits } from '../engine/keys/rate-limit.js';
import { userOfKey } from '../engine/keys/user-keys.js';
import { sentTogether } from '../redis/coalesce.js';
import { DEFAULT_TENANT } from '../redis/keys.js';
import { tenantExists } from '../redis/users.js';
import type { ApiKeyRecord } from '../model/entities.js';
import type { Snapshot } from '../model/snapshot.js';

export function hashKey(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}

export interface NewKey {
  record: ApiKeyRecord;
  /** The whole key: shown once, never stored. */
  key: string;
}

export function generateKey(kind: 'admin' | 'application', name: string, tenantId: string | null, now: string): NewKey {
  const prefix = `lrl_${kind === 'admin' ? 'adm' : 'app'}_${randomBytes(6).toString('hex')}`;
  const key = `${prefix}.${randomBytes(24).toString('base64url')}`;
  return { key, record: { id: uuidv7(), name, kind, tenantId, prefix, hash: hashKey(key), created: now } };
}

/** The record of a key given from outside (LAUREL_ADMIN_KEY): only its hash is kept. */
export function externalKeyRecord(raw: string, name: string, now: string): ApiKeyRecord {
  return { id: uuidv7(), name, kind: 'admin', tenantId: null, prefix: `${raw.slice(0, 4)}…`, hash: hashKey(raw), created: now };
}

/** A key scoped to one user: `lrl_usr_` and its id's 32 hex digits, a dot, the secret. */
const USER_KEY = /^lrl_usr_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})\.[A-Za-z0-9_-]{1,128}$/;

export interface NewUserKey {
  id: string;
  /** The public part of the key, before the dot. */
  prefix: string;
  /** The whole key: answered once, never stored. */
  key: string;
  hash: string;
}

/** A new key scoped to one user: its id is in its prefix, so a request finds its record at once. */
export function generateUserKey(): NewUserKey {
  const id = uuidv7();
  const prefix = `lrl_usr_${id.replace(/-/g, '')}`;
  const key = `${prefix}.${randomBytes(24).toString('base64url')}`;
  return { id, prefix, key, hash: hashKey(key) };
}

/** The id of a key shaped as a user-scoped key, else null. */
function userKeyId(raw: string): string | null {
  if (!raw.startsWith('lrl_usr_')) return null;
  const m = USER_KEY.exec(raw);
  return m === null ? null : `${m[1]}-${m[2]}-${m[3]}-${m[4]}-${m[5]}`;
}

export class Authenticator {
  private readonly store: ConfigStore;
  private readonly deps: Pick<Context, 'redis' | 'keys' | 'clock'>;
  private readonly limits: KeyLimits;
  /** Raw key -> record, so the hash is computed once per key and configuration version. */
  private cache = new Map<string, ApiKeyRecord | null>();
  private cacheVersion = -1;

  constructor(deps: Pick<Context, 'store' | 'redis' | 'keys' | 'clock'>, limits: KeyLimits) {
    this.store = deps.store;
    this.deps = deps;
    this.limits = limits;
  }

  private lookup(snapshot: Snapshot, raw: string): ApiKeyRecord | null {
    if (snapshot.version !== this.cacheVersion || this.cache.size > 10_000) {
      this.cache = new Map();
      this.cacheVersion = snapshot.version;
    }
    let record = this.cache.get(raw);
    if (record === undefined) {
      record = snapshot.apiKeysByHash.get(hashKey(raw)) ?? null;
      this.cache.set(raw, record);
    }
    return record;
  }

  /**
   * The guard of the HTTP layer: authenticates, checks the key's kind and resolves the tenant;
   * answers a promise when Redis has a say (a rate limit, a user-scoped key), else nothing.
   */
  readonly guard = (req: Request, route: Route): void | Promise<void> => {
    const family = route.family;
    if (family === 'ops') return;
    if (this.store.restoring) throw fail('unavailable', 'laurel restore is rebuilding Redis from Postgres; retry shortly');
    if (this.store.lostData) throw fail('unavailable', 'Redis came back without laurel\'s data; `laurel restore` rebuilds it from Postgres');
    if (this.store.verifying) throw fail('unavailable', 'Redis is back; laurel is checking that it kept its data; retry shortly');
    if (!this.store.connected) throw fail('unavailable', 'Redis is not reachable');
    if (req.apiKey === '') throw fail('unauthorized');
    const scoped = userKeyId(req.apiKey);
    const weight = route.weight?.(req) ?? 1;
    if (scoped !== null) return this.asUser(req, route, scoped, weight);
    const snapshot = this.store.current;
    const key = this.lookup(snapshot, req.apiKey);
    if (key === null) throw fail('unauthorized');
    authorize(snapshot, req, route, { id: key.id, kind: key.kind, tenantId: key.tenantId, user: null });
    if (this.limits.account !== null) return this.limits.account.take(key.id, weight);
  };

  /**
   * Whether each principal an earlier request was authorized as still stands: its key not revoked
   * (an account key in the configuration, a user-scoped key in Redis), its tenant still active.
   * For what outlives a request: the live sockets (src/http/live-socket.ts).
   */
  async stillValid(principals: Principal[]): Promise<boolean[]> {
    const snapshot = this.store.current;
    const { redis, keys } = this.deps;
    const scoped = [...new Set(principals.filter((p) => p.user !== null).map((p) => p.keyId))];
    const found = scoped.length === 0 ? [] : await Promise.all(sentTogether(redis, () => scoped.map((id) => redis.exists(keys.apiKey(id).record))));
    const live = new Set(scoped.filter((_, i) => found[i] === 1));
    return principals.map((p) => {
      if (p.tenant !== DEFAULT_TENANT && snapshot.tenants.get(p.tenant)?.status !== 'active') return false;
      return p.user === null ? snapshot.apiKeys.has(p.keyId) : live.has(p.keyId);
    });
  }

  /** A user-scoped key: found (and its rate limit taken) in Redis, then held to its user. */
  private async asUser(req: Request, route: Route, id: string, weight: number): Promise<void> {
    const found = await userOfKey(this.deps, this.limits.user, id, hashKey(req.apiKey), weight);
    // A deleted tenant's keys are revoked with it, before the workers' erasure pass removes them.
    if (found === null || !tenantExists(this.store.current, found.tenant)) throw fail('unauthorized');
    authorize(this.store.current, req, route, { id, kind: 'application', tenantId: found.tenant, user: found.userId });
  }
}

export type { Principal };
export { NOT_PRINTABLE_ASCII } from './authorize.js';

export function principalOf(req: Request): Principal {
  return req.principal as Principal;
}
