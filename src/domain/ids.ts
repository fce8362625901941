/**
 * Time-ordered UUIDs (version 7, RFC 9562) for configuration entities, so that listing them by id
 * lists them in creation order, also within one millisecond (a counter in the 12 bits after the
 * time keeps them increasing in this process).
 */
import { createHash, randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

export function uuidv7(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = randomBytes(2).readUInt16BE(0) & 0x3ff; // leave room to count up within the ms
  } else {
    counter++;
    if (counter > 0xfff) {
      lastMs++;
      counter = 0;
    }
  }
  const ms = lastMs.toString(16).padStart(12, '0');
  const rand = randomBytes(8);
  rand[0] = (rand[0] & 0x3f) | 0x80; // variant 10
  const tail = rand.toString('hex');
  return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${counter.toString(16).padStart(3, '0')}-${tail.slice(0, 4)}-${tail.slice(4, 16)}`;
}

/** A name-based UUID (version 5 layout over sha1): the same name always gives the same id. */
export function nameUuid(name: string): string {
  const h = createHash('sha1').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** 32-bit FNV-1a of `s`, from `h`. */
function fnv(s: string, h: number): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A name-based id in UUID form from four FNV-1a passes: not cryptographic, a fraction of the cost
 * of sha1, for ids made on the event path (a points award's id).
 */
export function quickNameUuid(name: string): string {
  const hex = [0x811c9dc5, 0x050c5d1f, 0x2b992ddf, 0x9e3779b9].map((seed) => fnv(name, seed).toString(16).padStart(8, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
