/**
 * A streamed answer's chunks (src/http/server.ts Reply.stream): the parts a route makes, joined
 * into chunks of about `size` characters, so that uWS gets a few large writes rather than one per
 * part, and the next part is made only once the chunk before is handed over.
 */

/** Chunks of the parts, in order, each of `size` characters or more but the last. */
export async function* chunked(parts: AsyncIterable<string> | Iterable<string>, size = 64 * 1024): AsyncGenerator<string> {
  let held: string[] = [];
  let length = 0;
  for await (const part of parts) {
    held.push(part);
    length += part.length;
    if (length >= size) {
      yield held.join('');
      held = [];
      length = 0;
    }
  }
  if (length > 0) yield held.join('');
}
