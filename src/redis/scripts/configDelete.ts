/**
 * The codec of lua/configDelete-3.lua: deletes a configuration entity and moves the version.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { Keys } from './configPut.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    configDelete(entities: string, uniques: string, version: string, id: string, uniqueField: string): Result<number, Context>;
  }
}

export type { Keys };

/** True once deleted, false when no entity had the id. */
export async function run(redis: RedisClient, k: Keys, id: string, uniqueField: string): Promise<boolean> {
  const r = await redis.configDelete(k.entities, k.uniques, k.version, id, uniqueField);
  return r !== ScriptCode.NOT_FOUND;
}
