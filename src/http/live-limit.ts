/**
 * The rate limit of a live socket's messages (docs/operations.md#rate-limits): each message a
 * socket sends counts against its key's limit as a request does (LAUREL_RATE_LIMIT for an
 * account's key, LAUREL_USER_KEY_RATE_LIMIT for a key scoped to a user), through the same limiter
 * and bucket (src/engine/keys/rate-limit.ts), so that REST calls and socket messages with one key
 * share one budget. A message over the limit is not handled: it is answered with the 429
 * of a request (`rate_limited`), and the socket stays open.
 *
 * Each message's take is one Redis call; a socket's messages are still handled in the order they
 * came, each once its own take has answered and the one before it was handled. Without a limit
 * nothing is called, and each message is handled at once, in the turn it came in.
 */
import { limiterOf, type KeyLimits } from '../engine/keys/rate-limit.js';

/** What a socket keeps for its messages: the handling of the last one taken from the limit. */
export interface MessageTurns {
  last: Promise<void>;
}

export function messageTurns(): MessageTurns {
  return { last: Promise.resolve() };
}

export class MessageLimit {
  private readonly limits: KeyLimits;

  constructor(limits: KeyLimits) {
    this.limits = limits;
  }

  /**
   * Takes one message of the key's (`principal`: its id, and its user for a user-scoped key) from
   * its limit, then `handle`s it after the socket's messages before it; `refused` with the 429, or
   * the error of a take Redis did not answer, instead. Without a limit, `handle` runs now. Neither
   * may throw.
   */
  admit(principal: { keyId: string; user: string | null }, turns: MessageTurns, handle: () => void, refused: (err: unknown) => void): void {
    const limiter = limiterOf(this.limits, principal);
    if (limiter === null) {
      handle();
      return;
    }
    const taken = limiter.take(principal.keyId);
    // Its rejection is handled in its turn, below; this only keeps it from counting as unhandled meanwhile.
    taken.catch(() => {});
    turns.last = turns.last.then(() => taken).then(handle, refused);
  }
}
