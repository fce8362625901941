/**
 * What a route says of itself. Every route is registered with this description; the OpenAPI
 * document is built from it (src/http/openapi.ts) and the server answers malformed input with the
 * status it names (src/http/server.ts). The request side is what the route checks, not a copy: a
 * body's schema is the object its check was compiled from (src/http/validate.ts), and a handler
 * reads only the query parameters listed here (src/http/reply.ts queryOf refuses any other).
 */

/** A JSON Schema, as Ajv compiles it and the document shows it. */
export type Schema = Record<string, unknown>;

/** A compiled check of src/http/validate.ts: it keeps the schema it was compiled from. */
export interface Compiled {
  readonly schema: Schema;
}

/** A query parameter or a header, described by the schema of its value. */
export interface Param {
  name: string;
  schema: Schema;
  description?: string;
  required?: boolean;
  /** A spelling kept for another client (`start_date` beside `startDate`). */
  deprecated?: boolean;
}

/** A path parameter (`:name` in the path), when it says more than "a string". */
export interface PathParam {
  schema: Schema;
  description?: string;
}

export interface BodyDoc {
  /** The check the handler runs on the body (or on each item of a batch). */
  check: Compiled;
  /**
   * A batch: the body is an array of 1 to `batch` items, each checked alone (an item that fails is
   * an issue in the answer, not a 4xx).
   */
  batch?: number;
  /** With `batch`: one item alone, not in an array, is taken too (and refused with a 4xx). */
  orOne?: boolean;
}

export interface RouteDoc {
  /** One line: what the call does. */
  summary: string;
  description?: string;
  params?: Record<string, PathParam>;
  query?: readonly Param[];
  headers?: readonly Param[];
  body?: BodyDoc;
  /** The statuses of a success, the usual one first. */
  success: readonly number[];
  /** The schema of a success's body, where laurel has one. */
  response?: Schema;
  /** The success's content type, when it is not JSON. */
  contentType?: string;
  /**
   * The status of malformed input (the body, a query parameter, the path, a header): 400 (the
   * default), or 422 on the Application API calls whose typed errors in SDK 1.0.42 (for the calls
   * it lacks, Trophy's specification) name 422 and not 400: the SDK throws its typed
   * UnprocessableEntityError where a 400 would be a bare TrophyApiError. The server answers every
   * 400 of such a call with 422, code and message unchanged.
   */
  malformed?: 400 | 422;
  /** Other refusals of the call: 422 for a semantic error, 503 where it has its own. */
  refusals?: readonly number[];
  /** The call's data belongs to the tenant `Tenant-ID` names (every Application API call). */
  tenant?: boolean;
}
