/**
 * The codec of lua/configPut-3.lua: stores a configuration entity and moves the version.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    configPut(
      entities: string, uniques: string, version: string, mode: string, id: string, json: string, unique: string, uniqueField: string,
    ): Result<number, Context>;
  }
}

export interface Keys {
  /** `Keys.config(kind)` */
  entities: string;
  /** `Keys.configUnique(kind)` */
  uniques: string;
  /** `Keys.configVersion` */
  version: string;
}

export interface Args {
  mode: 'create' | 'update';
  id: string;
  /** The entity as stored (JSON). */
  json: string;
  /** The entity's unique value, '' when its kind has none. */
  unique: string;
  /** The name of the unique field in the JSON, '' when the kind has none. */
  uniqueField: string;
}

/** 'ok' once stored (the version moved), else why nothing was. */
export type Answer = 'ok' | 'exists' | 'not_found' | 'duplicate';

export async function run(redis: RedisClient, k: Keys, a: Args): Promise<Answer> {
  const r = await redis.configPut(k.entities, k.uniques, k.version, a.mode, a.id, a.json, a.unique, a.uniqueField);
  if (r === ScriptCode.EXISTS) return 'exists';
  if (r === ScriptCode.NOT_FOUND) return 'not_found';
  if (r === ScriptCode.DUPLICATE) return 'duplicate';
  return 'ok';
}
