/**
 * The text rules the Admin API checks with a JSON Schema pattern, for the forms: the pattern as HTML
 * takes it (browsers compile it with the `v` flag, where a bare hyphen in a class is a syntax
 * error: the browser then ignores the pattern and says so on the console only), the rule in words,
 * and `readable`, which says the Admin API's refusal in those words.
 */
export interface Rule {
  /** The Admin API's pattern, as its refusal quotes it. */
  api: string;
  /** The same for an input's `pattern` (anchored by HTML). */
  html: string;
  words: string;
}

export const KEY_RULE: Rule = { api: '^[a-zA-Z0-9_-]+$', html: '[A-Za-z0-9_\\-]+', words: 'letters, digits, _ and - only (no spaces)' };

/**
 * The key the Admin API gives an achievement created without one: the name in lower case, each run
 * of other characters a `-` (the Admin API adds `-2`, `-3`, … while it is taken).
 */
export function keyFromName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 90) || 'achievement';
}

/** A tenant's customer id: what the Tenant-ID header sends. */
export const CUSTOMER_ID_RULE: Rule = {
  api: '^[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?$', html: '[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?',
  words: 'plain ASCII characters only (no accents), no space at either end',
};

/** An Admin API message as a person reads it: a pattern it quotes said in words, and a bound or a count too. */
export function readable(message: string): string {
  let out = message;
  for (const rule of [KEY_RULE, CUSTOMER_ID_RULE]) out = out.split(`must match pattern "${rule.api}"`).join(`may hold ${rule.words}`);
  return out
    .replace(/must NOT have fewer than 1 items/g, 'needs one at least')
    .replace(/must NOT have fewer than (\d+) items/g, 'needs $1 at least')
    .replace(/must NOT have more than (\d+) items/g, 'takes $1 at most')
    .replace(/must be <= (-?[\d.]+(?:e[-+]?\d+)?)/g, (_, n: string) => `must be ${plainNumber(n)} at most`)
    .replace(/must be >= (-?[\d.]+(?:e[-+]?\d+)?)/g, (_, n: string) => `must be ${plainNumber(n)} at least`);
}

/** A bound as a person writes it: 0.000000001, not 1e-9. */
function plainNumber(text: string): string {
  return Number(text).toLocaleString('en-US', { maximumFractionDigits: 20, useGrouping: false });
}
