/**
 * The one map from a script's refusal (a code of REFUSALS, src/redis/codes.ts) to the error the api
 * answers with: each refusal takes the names its message needs, and `refused` requires them by
 * code, as `fail` does by error (src/lib/errors.ts).
 */
import { fail, type HttpError } from '../lib/errors.js';
import { ScriptCode, type Refusal } from '../redis/codes.js';

export const REFUSAL_ERRORS = {
  [ScriptCode.SUBSCRIBE_WITHOUT_EMAIL]: () => fail('subscribe_without_email'),
  [ScriptCode.EXISTS]: (userId: string) => fail('user_exists', userId),
  [ScriptCode.NOT_FOUND]: (userId: string) => fail('user_not_found', userId),
  [ScriptCode.FILTERED_OUT]: (userId: string, achievementKey: string) =>
    fail('unprocessable', `User "${userId}" does not have the attribute values achievement "${achievementKey}" requires`),
  [ScriptCode.OUT_OF_POINTS]: (systemKey: string) => fail('out_of_points', systemKey),
  [ScriptCode.TOTAL_OUT_OF_RANGE]: (metricKey: string) =>
    fail('unprocessable', `The total of metric "${metricKey}" would leave the range of a number (about ±1.8e308)`),
  [ScriptCode.POINTS_OUT_OF_RANGE]: (systemKey: string) => fail('points_out_of_range', systemKey),
} satisfies Record<Refusal, (...names: never[]) => HttpError>;

/** What a refusal's message names: `refused(ScriptCode.EXISTS, userId)`. */
export type RefusalArgs<C extends Refusal> = Parameters<(typeof REFUSAL_ERRORS)[C]>;

/** The error a refusal is answered with. */
export function refused<C extends Refusal>(code: C, ...names: RefusalArgs<C>): HttpError {
  return (REFUSAL_ERRORS[code] as (...a: string[]) => HttpError)(...names);
}
