/**
 * The secrets of a URL taken out, as the audit log keeps text (docs/api.md, "Audit log"): a text
 * is judged by what the WHATWG URL parser (Node's `URL`, which laurel's own URL checks use too)
 * makes of it, not by how it is written, so every form the parser takes (`https:/user:pw@host`,
 * `https:\\user:pw@host`, spaces around it, tabs and newlines inside it, any letter case, any
 * scheme) is caught. A text the parser reads as an absolute URL holding anything to take out is
 * kept as the parser writes it (its serialization), with REDACTED for its username and password,
 * for the value of each of its query's parameters (and an item without one), for its fragment's
 * (a fragment written as a query keeps its names: `#frag?token=[redacted]`, `#a=[redacted]`; any
 * other is redacted whole) and for the value of each `;name=value` parameter of its path. A text
 * that is no URL, or a URL with nothing to take out, is kept as written.
 */

/** What stands in for a secret value. */
export const REDACTED = '[redacted]';

/** A `;name=value` parameter of a path segment (`/x;token=T/y`). */
const PATH_PARAM = /;([^;=/]*)=[^;/]*/g;

/** A query (or a fragment), its `&`-separated items each without its value: `a=[redacted]`, a bare item `[redacted]`. */
function withoutValues(text: string): string {
  return text.split('&').map((item) => {
    if (item === '') return item;
    const eq = item.indexOf('=');
    return eq < 0 ? REDACTED : `${item.slice(0, eq)}=${REDACTED}`;
  }).join('&');
}

/** A fragment without its secrets: one written as a query without its values, any other whole. */
function fragmentWithout(text: string): string {
  if (text === '') return text;
  return text.includes('=') ? withoutValues(text) : REDACTED;
}

/**
 * A text without the secrets of the URL it is: as the URL parser writes it, its credentials and
 * values redacted; as written when it is no absolute URL, or one with nothing to redact.
 */
export function redactUrl(text: string): string {
  // An absolute URL has a scheme, ended by the first colon.
  if (!text.includes(':')) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  // The serialization: scheme ":" ["//" [userinfo "@"] host] path ["?" query] ["#" fragment]. The
  // parser percent-encodes "/", "?", "#" and "@" in the userinfo, "?" and "#" in a path (an opaque
  // one ends at them), "#" in a query, and a host holds none of them: the first "/", "?" or "#"
  // after "//" ends the authority, the first "#" starts the fragment, the first "?" before it the query.
  const href = url.href;
  let head = url.protocol;
  let rest = href.slice(head.length);
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?#]/);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, 2 + end);
    rest = end < 0 ? '' : rest.slice(2 + end);
    const at = authority.lastIndexOf('@');
    const userinfo = `${url.username === '' ? '' : REDACTED}${url.password === '' ? '' : `:${REDACTED}`}`;
    head += `//${at < 0 ? authority : `${userinfo}@${authority.slice(at + 1)}`}`;
  }
  const hash = rest.indexOf('#');
  const beforeHash = hash < 0 ? rest : rest.slice(0, hash);
  const q = beforeHash.indexOf('?');
  const path = q < 0 ? beforeHash : beforeHash.slice(0, q);
  const out = head + path.replace(PATH_PARAM, `;$1=${REDACTED}`)
    + (q < 0 ? '' : `?${withoutValues(beforeHash.slice(q + 1))}`)
    + (hash < 0 ? '' : `#${fragmentWithout(rest.slice(hash + 1))}`);
  return out === href ? text : out;
}
