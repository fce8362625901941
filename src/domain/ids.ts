/**
 * Time-ordered UUIDs (version 7, RFC 9562) for configuration entities, so that listing them by id
 * lists them in creation order, also within one millisecond (a counter in the 12 bits after the
 * time keeps them increasing in this process). The time is the machine's: the ids of every
 * process then interleave in creation order; a later time given once (the service's manual clock)
 * would hold this process's ids above the others' from then on.
 */
import { createHash, randomBytes } from 'node:crypto';

/** A UUID in lower case, as laurel makes them (randomUUID, uuidv7). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

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

/** When a uuidv7 was made (ms): its first 48 bits. */
export function timeOfUuidv7(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/** A name-based UUID (version 5 layout over sha1): the same name always gives the same id. */
export function nameUuid(name: string): string {
  const h = createHash('sha1').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const BYTE_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const hex8 = (n: number): string =>
  BYTE_HEX[n >>> 24] + BYTE_HEX[(n >>> 16) & 255] + BYTE_HEX[(n >>> 8) & 255] + BYTE_HEX[n & 255];
const VARIANT = ['8', '9', 'a', 'b'];

/**
 * A name-based id in UUID form from four FNV-1a hashes of the name (one pass, four seeds): not
 * cryptographic, a fraction of the cost of sha1, for ids made on the event path (a points award's).
 * The 32 hex digits of the four hashes, in order, fill the UUID, with the version digit (5) over
 * the 13th and the variant bits over the 17th.
 */
export function quickNameUuid(name: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  let c = 0x2b992ddf;
  let d = 0x9e3779b9;
  for (let i = 0; i < name.length; i++) {
    const ch = name.charCodeAt(i);
    a = Math.imul(a ^ ch, 0x01000193);
    b = Math.imul(b ^ ch, 0x01000193);
    c = Math.imul(c ^ ch, 0x01000193);
    d = Math.imul(d ^ ch, 0x01000193);
  }
  const hb = hex8(b);
  const hc = hex8(c);
  return `${hex8(a)}-${hb.slice(0, 4)}-5${hb.slice(5)}-${VARIANT[(c >>> 28) & 3]}${hc.slice(1, 4)}-${hc.slice(4)}${hex8(d)}`;
}
