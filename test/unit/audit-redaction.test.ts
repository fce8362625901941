/**
 * What an audit entry keeps of a request body (src/domain/audit.ts redactSecrets and auditBody,
 * src/domain/url-secrets.ts): every text the WHATWG URL parser reads as an absolute URL, wherever
 * it is in the body, as the parser writes it, without its username, password, query values,
 * fragment and path parameters' values; a URL with nothing to take out and every other text as
 * written; a secret field's value whole. Examples of every odd form, then a property test over
 * generated URLs (test/support/secret-urls.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditBody, redactSecrets } from '../../src/domain/audit.js';
import { secretUrl } from '../support/secret-urls.js';

const R = '[redacted]';

describe('the audit log\'s redaction', () => {
  it('takes the secrets out of a URL in every form the parser reads, and writes it as the parser does', () => {
    const cases: [string, string][] = [
      ['https:/user:secret@host/x?token=T', `https://${R}:${R}@host/x?token=${R}`],
      ['https:\\\\user:secret@host/x?token=T', `https://${R}:${R}@host/x?token=${R}`],
      ['https:user:secret@host', `https://${R}:${R}@host/`],
      [' https://user:secret@host/x', `https://${R}:${R}@host/x`],
      ['\t\nhttps://user:secret@host/x \r\n', `https://${R}:${R}@host/x`],
      ['ht\ttps://us\ner:sec\rret@host/x', `https://${R}:${R}@host/x`],
      ['https://user:pa@ss@host', `https://${R}:${R}@host/`],
      ['https://user:pa:ss@host', `https://${R}:${R}@host/`],
      ['https://secret@host', `https://${R}@host/`],
      ['https://:secret@host', `https://:${R}@host/`],
      ['HTTPS://US%45R:S%45CRET@Host.Example:8443/In', `https://${R}:${R}@host.example:8443/In`],
      ['https://host/x#frag?token=T', `https://host/x#frag?token=${R}`],
      ['https://host/cb#access_token=T&state=s', `https://host/cb#access_token=${R}&state=${R}`],
      ['https://host/x#T', `https://host/x#${R}`],
      ['https://host/x;token=T/y;a=b;sid=S', `https://host/x;token=${R}/y;a=${R};sid=${R}`],
      ['https://host/x?a=1&T&b=2;token=S&&', `https://host/x?a=${R}&${R}&b=${R}&&`],
      ['wss:\\/\\user:secret@host\\live', `wss://${R}:${R}@host/live`],
      ['myapp://user:secret@host/x', `myapp://${R}:${R}@host/x`],
      ['myapp:open?token=T', `myapp:open?token=${R}`],
      ['redis://:secret@cache:6379/0', `redis://:${R}@cache:6379/0`],
    ];
    for (const [text, kept] of cases) expect(redactSecrets(text), JSON.stringify(text)).toBe(kept);
  });

  it('keeps as written a text that is no URL, and a URL with nothing to take out', () => {
    for (const text of [
      '', 'Touched', 'ann@example.com', '10:30', 'https://', 'https://host name/x', 'https://hooks.example.com/in',
      'HTTPS:\\\\Hooks.Example.com\\in', 'https://host/x?', 'https://host/x#', 'Fraud: farming', 'mailto:ops@example.com',
    ]) {
      expect(redactSecrets(text), JSON.stringify(text)).toBe(text);
    }
  });

  it('redacts URLs at any depth, in values and in field names, and secret fields whole', () => {
    expect(redactSecrets({
      name: 'Hook', url: 'https:/ops:pw@hooks.example.com/in?token=T',
      nested: [{ deep: [['https://s@a.example']] }, 3, null, true],
      'https://u:p@keys.example/k?x=1': 'value',
      password: 'https://plain.example/', deviceTokens: ['t1'], apiKey: null,
    })).toEqual({
      name: 'Hook', url: `https://${R}:${R}@hooks.example.com/in?token=${R}`,
      nested: [{ deep: [[`https://${R}@a.example/`]] }, 3, null, true],
      [`https://${R}:${R}@keys.example/k?x=${R}`]: 'value',
      password: R, deviceTokens: R, apiKey: null,
    });
    // The body as sent, accepted or refused alike: what auditBody keeps of it.
    expect(auditBody(JSON.stringify([{ name: 'Hook', url: 'https://secret@hooks.example.com/in', events: [] }])))
      .toEqual([{ name: 'Hook', url: `https://${R}@hooks.example.com/in`, events: [] }]);
  });

  it('leaves no secret of any generated URL, keeps its host and path readable, and is stable', () => {
    fc.assert(fc.property(secretUrl, (u) => {
      const kept = redactSecrets(u.text) as string;
      for (const s of u.secrets) expect(kept, `${JSON.stringify(u.text)} kept ${s}`).not.toContain(s);
      for (const r of u.readable) expect(kept, JSON.stringify(u.text)).toContain(r);
      expect(new URL(kept).hostname).toBe(new URL(u.text).hostname);
      expect(redactSecrets(kept)).toBe(kept);
    }), { numRuns: 2000 });
  });
});
