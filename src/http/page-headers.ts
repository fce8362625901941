/**
 * The headers of the pages laurel serves to browsers (docs/operations.md, "Pages"): the dashboard,
 * which holds an admin key in the tab's session storage, and the pages of the emails' links,
 * whose path holds a signed token. Scripts only from laurel's own files (no inline script, no
 * `eval`), no framing by another site, no sniffing of a file's type, and no address sent on to
 * another site.
 */

/** The policy's parts every page shares. */
const SHARED = ["object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"];

const common = (policy: string[]): Record<string, string> => ({
  'content-security-policy': [...policy, ...SHARED].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
});

/**
 * The dashboard's page: its bundle's scripts and styles (preact and uPlot set element styles,
 * hence inline styles), badges and logos from any web address, calls and live updates to laurel.
 */
export const DASHBOARD_PAGE = common([
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: http: https:",
  "connect-src 'self'", "form-action 'self'",
]);

/** The dashboard's files (scripts, styles): never taken for another type. */
export const DASHBOARD_FILE = { 'x-content-type-options': 'nosniff' };

/** The preferences page of the emails' links: plain HTML, a form that posts to itself, nothing else. */
export const LINK_PAGE = common(["default-src 'none'", "form-action 'self'"]);
