/** Text as JSON and Postgres both take it. */

/** U+0000, or a surrogate without its pair. */
export const NOT_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether every string in a parsed JSON value (keys too) is text: no U+0000, no lone surrogate. */
export function isText(value: unknown): boolean {
  if (typeof value === 'string') return !NOT_TEXT.test(value);
  if (Array.isArray(value)) return value.every(isText);
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if (!isText(k) || !isText(v)) return false;
  }
  return true;
}

/**
 * Whether a URL laurel stores (a badge, a logo, the public address) is an absolute `http:` or
 * `https:` URL: anything else (`javascript:`, `data:`, a relative path) could run or mislead where
 * a page shows it.
 */
export function isWebUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'http:' || url.protocol === 'https:';
}
