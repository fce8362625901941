/**
 * What the OpenAPI document says of laurel as a whole (its routes describe themselves): the title,
 * the version of the package that runs, and how the families are served.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DocumentInfo } from '../http/openapi.js';
import type { Family } from '../http/server.js';

/** The version in the nearest package.json above this module (src/app/ when run from source, dist/src/app/ when built). */
function packageVersion(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0';
    if (dirname(dir) === dir) return '0.0.0';
  }
}

export function documentInfo(prefixes: Record<Family, string[]>): DocumentInfo {
  return {
    title: 'laurel',
    version: packageVersion(),
    description: [
      'A self-hostable gamification service. The Application API is wire-compatible with the public Trophy API',
      `(served at ${prefixes.app.join(' and ')}); the Admin API (at ${prefixes.admin.join(', ')}) configures it.`,
      'Every call but the operations carries an API key in X-API-KEY; Tenant-ID scopes a call to a tenant.',
      'Every error answers { "error": "<message>", "code": "<code>" }.',
      'This document is built from the routes the server mounts, when it starts.',
    ].join(' '),
    prefixes,
  };
}
