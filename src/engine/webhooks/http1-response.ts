/**
 * Reading the answer to a webhook POST (RFC 9112, HTTP/1.1, and 1.0), as src/engine/webhooks/http1.ts
 * gets its bytes, in pieces of any size: the final status (interim 1xx answers skipped), the body's
 * end found by its framing (none for 204 and 304, `Transfer-Encoding: chunked` with its trailers,
 * `Content-Length`, else the connection's close) and read through unkept, and whether the
 * connection serves another request. What a delivery needs is the status: nothing else of the
 * answer is kept. An answer that breaks the protocol (a head past 64 KiB, a bad status line,
 * Content-Lengths that disagree, a bad chunk size, 101 Switching Protocols) throws a
 * ProtocolError, and its connection is closed.
 */

/** An answer that breaks HTTP/1.1. */
export class ProtocolError extends Error {
  readonly code = 'HPE_INVALID';
}

/** A head (status line and headers) longer than this is refused. */
export const MAX_HEAD = 64 * 1024;
/** A chunk-size line (with its extensions), or a trailer line, longer than this is refused. */
const MAX_LINE = 8 * 1024;

const CRLFCRLF = Buffer.from('\r\n\r\n');
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: |\r|$)/;

type Phase = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-cr' | 'chunk-lf' | 'trailer' | 'close' | 'done';

/** What a finished answer says. */
export interface Answer {
  status: number;
  /** The connection may carry the next request. */
  keepAlive: boolean;
  /** The receiver's `Keep-Alive: timeout=<s>`, in ms; null when it gave none. */
  keepAliveMs: number | null;
  /** Bytes after the answer's end (none from a receiver that waits for the next request). */
  extra: number;
}

/** The parser of one answer (`reset()` before the next on the same connection). */
export class ResponseParser {
  private phase: Phase = 'head';
  private head: Buffer | null = null;
  private status = 0;
  private keepAlive = true;
  private keepAliveMs: number | null = null;
  /** Bytes of body left (`length`, `chunk-data`), or of the line read so far (`chunk-size`, `trailer`). */
  private left = 0;
  private line = '';

  reset(): void {
    this.phase = 'head';
    this.head = null;
    this.status = 0;
    this.keepAlive = true;
    this.keepAliveMs = null;
    this.left = 0;
    this.line = '';
  }

  /** Whether the answer so far ends with the connection's close (no framing): its close finishes it. */
  get endsAtClose(): boolean {
    return this.phase === 'close';
  }

  /** The answer once the connection closed, for one that ends at the close; null otherwise. */
  closed(): Answer | null {
    if (this.phase !== 'close') return null;
    this.phase = 'done';
    return { status: this.status, keepAlive: false, keepAliveMs: null, extra: 0 };
  }

  /** Takes the next bytes; answers the finished answer once its last byte came, else null. */
  feed(chunk: Buffer): Answer | null {
    let at = 0;
    while (at < chunk.length || this.phase === 'done') {
      switch (this.phase) {
        case 'head': {
          const data = this.head === null ? chunk.subarray(at) : Buffer.concat([this.head, chunk.subarray(at)]);
          const end = data.indexOf(CRLFCRLF);
          if (end < 0) {
            if (data.length > MAX_HEAD) throw new ProtocolError(`an answer's head over ${MAX_HEAD} bytes`);
            this.head = data;
            return null;
          }
          if (end > MAX_HEAD) throw new ProtocolError(`an answer's head over ${MAX_HEAD} bytes`);
          // What follows the head in this chunk: the head's bytes taken from `data`, which may start with earlier chunks.
          at = chunk.length - (data.length - end - 4);
          this.head = null;
          this.readHead(data.toString('latin1', 0, end));
          break;
        }
        case 'length': {
          const n = Math.min(this.left, chunk.length - at);
          at += n;
          this.left -= n;
          if (this.left === 0) this.phase = 'done';
          break;
        }
        case 'chunk-size':
        case 'trailer': {
          const lf = chunk.indexOf(0x0a, at);
          const end = lf < 0 ? chunk.length : lf;
          this.line += chunk.toString('latin1', at, end);
          if (this.line.length > MAX_LINE) throw new ProtocolError('a chunk-size or trailer line too long');
          if (lf < 0) return null;
          at = lf + 1;
          const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
          this.line = '';
          if (this.phase === 'trailer') {
            if (line === '') this.phase = 'done';
            break;
          }
          const size = line.split(';', 1)[0].trim();
          if (!/^[0-9a-fA-F]{1,12}$/.test(size)) throw new ProtocolError(`a bad chunk size: ${JSON.stringify(size.slice(0, 20))}`);
          this.left = parseInt(size, 16);
          this.phase = this.left === 0 ? 'trailer' : 'chunk-data';
          break;
        }
        case 'chunk-data': {
          const n = Math.min(this.left, chunk.length - at);
          at += n;
          this.left -= n;
          if (this.left === 0) this.phase = 'chunk-cr';
          break;
        }
        case 'chunk-cr':
          if (chunk[at] !== 0x0d) throw new ProtocolError('a chunk not followed by CRLF');
          at++;
          this.phase = 'chunk-lf';
          break;
        case 'chunk-lf':
          if (chunk[at] !== 0x0a) throw new ProtocolError('a chunk not followed by CRLF');
          at++;
          this.phase = 'chunk-size';
          break;
        case 'close':
          // The body runs to the connection's close: read through.
          return null;
        case 'done':
          return { status: this.status, keepAlive: this.keepAlive, keepAliveMs: this.keepAliveMs, extra: chunk.length - at };
      }
    }
    return null;
  }

  /** The status line and the headers of a head (without its CRLFCRLF); sets what follows. */
  private readHead(head: string): void {
    const lines = head.split('\r\n');
    const m = STATUS_LINE.exec(lines[0]);
    if (m === null) throw new ProtocolError(`a bad status line: ${JSON.stringify(lines[0].slice(0, 40))}`);
    const status = Number(m[2]);
    if (status === 101) throw new ProtocolError('101 Switching Protocols to a POST');
    // An interim answer (100 Continue, 102, 103 Early Hints): the final one follows.
    if (status < 200) return;
    let length: number | null = null;
    let chunked = false;
    let encoded = false;
    let close = false;
    let keepAlive = false;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const colon = line.indexOf(':');
      if (colon <= 0) throw new ProtocolError(`a bad header line: ${JSON.stringify(line.slice(0, 40))}`);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        for (const part of value.split(',')) {
          const v = part.trim();
          if (!/^\d{1,15}$/.test(v) || (length !== null && length !== Number(v))) throw new ProtocolError(`a bad Content-Length: ${JSON.stringify(value.slice(0, 40))}`);
          length = Number(v);
        }
      } else if (name === 'transfer-encoding') {
        encoded = true;
        const codings = value.toLowerCase().split(',').map((c) => c.trim());
        chunked = codings[codings.length - 1] === 'chunked';
      } else if (name === 'connection') {
        const tokens = value.toLowerCase().split(',').map((t) => t.trim());
        if (tokens.includes('close')) close = true;
        if (tokens.includes('keep-alive')) keepAlive = true;
      } else if (name === 'keep-alive') {
        const t = /(?:^|,)\s*timeout\s*=\s*(\d+)/i.exec(value);
        if (t !== null) this.keepAliveMs = Number(t[1]) * 1000;
      }
    }
    this.status = status;
    // HTTP/1.0 keeps the connection only when it says so; 1.1 unless it says close.
    this.keepAlive = m[1] === '0' ? keepAlive && !close : !close;
    if (status === 204 || status === 304) {
      this.phase = 'done';
    } else if (encoded) {
      // Transfer-Encoding over any Content-Length; not chunked last: the body runs to the close.
      if (length !== null) this.keepAlive = false;
      this.phase = chunked ? 'chunk-size' : 'close';
    } else if (length !== null) {
      this.left = length;
      this.phase = length === 0 ? 'done' : 'length';
    } else {
      this.phase = 'close';
    }
    if (this.phase === 'close') this.keepAlive = false;
  }
}
