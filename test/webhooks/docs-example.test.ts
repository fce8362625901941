/**
 * The receiver's example in docs/webhooks.md ("Verifying a delivery"), run as written: its
 * `verifyTrophySignature` (node:crypto only) takes the headers laurel signs
 * (src/domain/webhooks/signing.ts), with one secret and during a rotation, and refuses another
 * secret or a changed body.
 */
import * as crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { newSecret, signedHeaders } from '../../src/domain/webhooks/signing.js';

type Verify = (secret: string, rawBody: string, header: string) => boolean;

/** The docs' JavaScript block that defines `name`, its imports taken from node:crypto. */
function docFunction(name: string): Verify {
  const blocks = [...readFileSync('docs/webhooks.md', 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  const block = blocks.find((b) => b.includes(`function ${name}(`));
  if (block === undefined) throw new Error(`docs/webhooks.md has no JavaScript block defining ${name}`);
  const imports = /^import \{ ([^}]+) \} from 'node:crypto';\n/m.exec(block);
  if (imports === null) throw new Error(`the block of ${name} imports nothing from node:crypto`);
  const names = imports[1].split(',').map((n) => n.trim());
  const body = block.replace(imports[0], '');
  // The documentation's own code, run as a reader would.
  return new Function(...names, `${body}\nreturn ${name};`)(...names.map((n) => (crypto as unknown as Record<string, unknown>)[n])) as Verify;
}

describe('the receiver example in docs/webhooks.md', () => {
  const verify = docFunction('verifyTrophySignature');
  const body = JSON.stringify({ type: 'achievement.completed', user: { id: 'ada' } });

  it('accepts what laurel signs, with one secret and during a rotation', () => {
    const [now, before] = [newSecret(), newSecret()];
    const one = signedHeaders([now], 'msg_1', 1_700_000_000, body);
    expect(verify(now, body, one['x-trophy-signature'])).toBe(true);
    const rotating = signedHeaders([now, before], 'msg_1', 1_700_000_000, body);
    expect(verify(now, body, rotating['x-trophy-signature'])).toBe(true);
    expect(verify(before, body, rotating['x-trophy-signature'])).toBe(true);
  });

  it('refuses another secret, a changed body, or no header', () => {
    const secret = newSecret();
    const headers = signedHeaders([secret], 'msg_2', 1_700_000_000, body);
    expect(verify(newSecret(), body, headers['x-trophy-signature'])).toBe(false);
    expect(verify(secret, body.replace('ada', 'bob'), headers['x-trophy-signature'])).toBe(false);
    expect(verify(secret, body, '')).toBe(false);
  });
});
