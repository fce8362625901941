/**
 * One HTTP request of laurel's command line to an installation (`laurel loadtest`'s set-up,
 * `laurel import`): the answer's status, its text and that text as JSON (null when it is not),
 * and its headers; a request that gets no answer (refused, reset, past `timeoutMs`) throws an
 * HttpCallError naming the method, the address and why.
 */

export interface HttpAnswer {
  status: number;
  /** The body as JSON; null when it is not JSON. */
  body: any;
  text: string;
  headers: Headers;
}

export class HttpCallError extends Error {}

export async function httpCall(url: string, method: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number): Promise<HttpAnswer> {
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new HttpCallError(`${method} ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch { /* not JSON: the text says it */ }
  return { status: res.status, body: parsed, text, headers: res.headers };
}
