/**
 * History import (docs/api.md, "History import"; src/domain/import.ts): `POST /admin/v1/import`
 * checks every item as a batch's (src/routes/admin/batch-items.ts), each with its `occurredAt` of
 * any age up to 5 minutes ahead, puts them in the order they happened and accepts them durably for
 * the workers as one batch whose events are imported ones, answering 202 `{ importId, accepted }`;
 * `GET /admin/v1/import/{importId}` answers its progress.
 */
import { importItems, inOccurrenceOrder, MAX_IMPORT_ITEMS } from '../../domain/import.js';
import type { Deps } from '../../engine/deps.js';
import { acceptBatch } from '../../engine/batches/accept.js';
import { noteImport } from '../../engine/batches/import-runs.js';
import { uuidv7 } from '../../domain/ids.js';
import { BacklogGate } from '../../engine/batches/backlog-gate.js';
import { principalOf } from '../../http/auth.js';
import { json, ok } from '../../http/reply.js';
import type { Request, Route } from '../../http/server.js';
import { queryOf } from '../../http/query.js';
import { parseJson } from '../../http/validate.js';
import { batchItemsCheck, itemsOf, progressRoute, queuedItems } from './batch-items.js';

const checkImport = batchItemsCheck(MAX_IMPORT_ITEMS, true, {
  type: 'string', maxLength: 64,
  description: 'When the interaction happened (ISO 8601 with an offset or Z), of any age up to 5 minutes after the import arrives',
});

export function adminImportRoutes(deps: Deps): Route[] {
  const gate = new BacklogGate(deps, deps.settings.batchMaxWaiting);

  async function post(req: Request) {
    const { tenant } = principalOf(req);
    const check = queryOf(req).bool('check');
    const items = queuedItems(itemsOf(checkImport, MAX_IMPORT_ITEMS, importItems(req.body, parseJson)), deps.store.current, deps.clock.now(), Number.POSITIVE_INFINITY);
    // Checked only: what the import would refuse, before any part of a file is sent.
    if (check) return ok({ checked: items.length });
    await gate.admit(items.length);
    const ordered = inOccurrenceOrder(items);
    // Noted before it is accepted: an import is never applied without its runs finalised again.
    const importId = uuidv7(Date.now());
    await noteImport(deps, importId, tenant, ordered[0].o!);
    const { accepted } = await acceptBatch(deps, tenant, ordered, true, importId);
    return json(202, { importId, accepted });
  }

  return [
    {
      method: 'post', path: '/import', family: 'admin', reach: 'tenant', handler: post, ndjson: true, bodyLimit: deps.settings.importBodyLimit,
      doc: {
        summary: 'Import past events, applied by the workers in the order they happened, telling no one',
        description: `A JSON array of 1 to ${MAX_IMPORT_ITEMS.toLocaleString('en')} batch items, or one a line (application/x-ndjson), each with ` +
          'its occurredAt, of any age. Checked whole first, as a batch (an item refused refuses the import, naming its index). ' +
          'The workers apply the items in the order they happened (those of one instant in the order sent), each as POST ' +
          '/metrics/{key}/event would at its occurredAt, and at most once; no webhook, notification or live update comes of ' +
          'them. GET /import/{importId} tells how far they are. Bodies up to LAUREL_IMPORT_BODY_LIMIT (8 MiB by default). ' +
          'With check=true the items are checked as they would be and nothing is accepted: 200 { checked }.',
        query: [{ name: 'check', schema: { type: 'boolean' }, description: 'Only check the items: 200 { checked }, nothing accepted' }],
        body: { check: checkImport },
        success: [200, 202],
        refusals: [413, 422, 503],
        tenant: true,
        response: {
          type: 'object',
          properties: {
            importId: { type: 'string', description: 'The import, for GET /import/{importId} (202)' },
            accepted: { type: 'integer', description: 'The number of events accepted (202)' },
            checked: { type: 'integer', description: 'The number of events checked, none accepted (200, check=true)' },
          },
        },
      },
    },
    progressRoute(deps, '/import', 'importId', 'Import', 'How far the workers are with an import',
      'Kept for 24 hours after the import was accepted. An item that could not be applied is counted in failed and listed in issues, ' +
      'by its index as sent.', 'POST /import'),
  ];
}
