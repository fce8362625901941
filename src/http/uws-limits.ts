/**
 * uWebSockets.js's own limit on a request's headers, read from the environment once, when its
 * binary loads: imported by src/http/server.ts before uWebSockets.js, so that it is set by then.
 * uWS answers a request over it with 431 and an HTML body of its own, and closes; laurel's limit
 * (src/http/server.ts HEADERS_LIMIT) is lower, so that laurel answers 431 with its JSON error body
 * first. An operator's UWS_HTTP_MAX_HEADERS_SIZE is kept.
 */
export const UWS_HEADERS_LIMIT = 64 * 1024;

process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(UWS_HEADERS_LIMIT);
