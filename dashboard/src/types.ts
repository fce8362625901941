/**
 * What the APIs answer, as the server declares it (src/model/views.ts, whose shapes the routes'
 * views are typed with): the dashboard's one source of the server's types.
 */
export type * from '../../src/model/views.js';
/** The webhook event types the Admin API takes. */
export { WEBHOOK_TYPES } from '../../src/model/entities.js';
