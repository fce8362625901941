/**
 * Time-ordered UUIDs (version 7, RFC 9562) for configuration entities, so that listing them by id
 * lists them in creation order, also within one millisecond (a counter in the 12 bits after the
 * time keeps them increasing in this process).
 */
import { randomBytes } from 'node:crypto';

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
