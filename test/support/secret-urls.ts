/**
 * URLs that carry secrets, generated (fast-check) in the forms the WHATWG URL parser (Node's `URL`)
 * takes and a reader may miss: any letter case of the scheme, one slash, none, several, backslashes
 * (`https:/user:pw@host`, `https:\\user:pw@host`), spaces and C0 controls around it, tabs and
 * newlines inside it, percent-encoded secrets; secrets in the username (`https://secret@host`), the
 * password (with a colon or an `@` in it: `https://user:pa@ss@host`), a query's values (and a bare
 * item), the fragment (`#frag?token=`, `#access_token=`, a bare one) and a path segment's
 * `;name=value`. Each comes with its secrets and with what must stay readable once they are taken
 * out: the host and the path's segments, as the parser reads them.
 */
import fc from 'fast-check';

export interface SecretUrl {
  /** The URL as written. */
  text: string;
  /** Each secret, as generated and as written (percent-encoded in part). */
  secrets: string[];
  /** The host and the path's segments, as the parser reads them. */
  readable: string[];
}

const ALNUM = [...'abcdefghijklmnopqrstuvwxyz0123456789'];

/** Lowercase letters and digits, `min` to `max` of them. */
const alnum = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...ALNUM), minLength: min, maxLength: max });

/** A secret: `zq` and ten letters or digits (nothing else the generator makes holds `zq`), and how it is written. */
const secret = fc.tuple(alnum(10, 10), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), fc.boolean()).map(([tail, encoded, upper]) => {
  const raw = `zq${tail}`;
  const hex = (c: string) => c.charCodeAt(0).toString(16);
  const written = [...raw].map((c, i) => (encoded[i] ? `%${upper ? hex(c).toUpperCase() : hex(c)}` : c)).join('');
  return { raw, written };
});

type Secret = { raw: string; written: string };

/** Schemes the parser gives an authority whatever slashes follow, and others that need `//`. */
const SPECIAL = ['http', 'https', 'ws', 'wss', 'ftp'];
const OTHER = ['myapp', 'redis', 'git+ssh', 'x-hook.v2'];
/** What a special scheme's colon may be followed by: the parser reads each as `//`. */
const SLASHES = ['//', '/', '', '\\\\', '\\', '///', '/\\', '\\/', '////', '\\\\\\'];

const userinfo = fc.oneof(
  fc.constant(null),
  secret.map((u) => ({ text: `${u.written}@`, secrets: [u] })),
  fc.tuple(fc.constantFrom('user', 'ops', 'admin'), secret).map(([u, p]) => ({ text: `${u}:${p.written}@`, secrets: [p] })),
  fc.tuple(secret, secret).map(([u, p]) => ({ text: `${u.written}:${p.written}@`, secrets: [u, p] })),
  secret.map((p) => ({ text: `:${p.written}@`, secrets: [p] })),
  fc.tuple(fc.constantFrom('user', 'ops'), secret, secret, fc.constantFrom('@', ':')).map(([u, a, b, sep]) => ({ text: `${u}:${a.written}${sep}${b.written}@`, secrets: [a, b] })),
);

const host = fc.tuple(fc.array(alnum(2, 7).map((l) => `h${l}`), { minLength: 1, maxLength: 2 }), fc.constantFrom('com', 'example', 'io', 'org'))
  .map(([labels, tld]) => [...labels, tld].join('.'));

/** A path segment (`p` and letters or digits), with a `;name=secret` parameter or none. */
const segment = fc.tuple(alnum(2, 6).map((s) => `p${s}`), fc.option(fc.tuple(fc.constantFrom('token', 'jsessionid', 'sid'), secret)));

const queryItem = fc.oneof(
  fc.tuple(fc.constantFrom('token', 'access_token', 'sig', 'x', 'code'), secret).map(([n, s]) => ({ text: `${n}=${s.written}`, secrets: [s] })),
  secret.map((s) => ({ text: s.written, secrets: [s] })),
  fc.tuple(secret, secret).map(([a, b]) => ({ text: `a=${a.written};token=${b.written}`, secrets: [a, b] })),
);

const fragment = fc.oneof(
  secret.map((s) => ({ text: s.written, secrets: [s] })),
  secret.map((s) => ({ text: `frag?token=${s.written}`, secrets: [s] })),
  secret.map((s) => ({ text: `access_token=${s.written}&state=xyz`, secrets: [s] })),
  secret.map((s) => ({ text: `/route?code=${s.written}`, secrets: [s] })),
);

/** `text` with each of `chars` inserted in turn at its position (taken modulo the length so far). */
function insert(text: string, chars: [number, string][]): string {
  let out = text;
  for (const [at, c] of chars) {
    const i = at % (out.length + 1);
    out = out.slice(0, i) + c + out.slice(i);
  }
  return out;
}

/** A URL with at least one secret, in any of the forms above. */
export const secretUrl: fc.Arbitrary<SecretUrl> = fc.record({
  special: fc.boolean(),
  specialScheme: fc.mixedCase(fc.constantFrom(...SPECIAL)),
  otherScheme: fc.mixedCase(fc.constantFrom(...OTHER)),
  slashes: fc.constantFrom(...SLASHES),
  userinfo,
  host: fc.mixedCase(host),
  port: fc.option(fc.integer({ min: 1, max: 65535 })),
  segments: fc.array(segment, { maxLength: 3 }),
  backslashes: fc.boolean(),
  query: fc.option(fc.array(queryItem, { minLength: 1, maxLength: 3 })),
  fragment: fc.option(fragment),
  before: fc.constantFrom('', ' ', '  ', '\t', '\n ', '\u0001', '\u000b\f'),
  after: fc.constantFrom('', ' ', '\n', '\t ', '\r\n'),
  inside: fc.array(fc.tuple(fc.nat(), fc.constantFrom('\t', '\n', '\r')), { maxLength: 3 }),
}).map((g) => {
  const secrets: Secret[] = [];
  const scheme = g.special ? g.specialScheme : g.otherScheme;
  // Another scheme has an authority after `//` only; a backslash is no slash in its path.
  const slashes = g.special ? g.slashes : '//';
  const sep = g.special && g.backslashes ? '\\' : '/';
  let text = `${scheme}:${slashes}`;
  if (g.userinfo !== null) {
    text += g.userinfo.text;
    secrets.push(...g.userinfo.secrets);
  }
  text += g.host + (g.port === null ? '' : `:${g.port}`);
  for (const [name, param] of g.segments) {
    text += `${sep}${name}`;
    if (param !== null) {
      text += `;${param[0]}=${param[1].written}`;
      secrets.push(param[1]);
    }
  }
  if (g.query !== null) {
    text += `?${g.query.map((q) => q.text).join('&')}`;
    for (const q of g.query) secrets.push(...q.secrets);
  }
  if (g.fragment !== null) {
    text += `#${g.fragment.text}`;
    secrets.push(...g.fragment.secrets);
  }
  text = g.before + insert(text, g.inside) + g.after;
  return { text, secrets, segments: g.segments.map(([name]) => name) };
}).filter((u) => u.secrets.length > 0).map((u) => ({
  text: u.text,
  secrets: u.secrets.flatMap((s) => (s.raw === s.written ? [s.raw] : [s.raw, s.written])),
  readable: [new URL(u.text).hostname, ...u.segments],
}));
