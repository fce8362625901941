/**
 * The port laurel's api processes are to listen on, found free first. uWebSockets.js binds with
 * SO_REUSEPORT on Linux, so a second laurel started on the port of one still running would bind
 * as well and take a share of its connections without a word; a plain socket (no SO_REUSEPORT)
 * cannot bind there, and says so. PORT=0: the kernel's pick of a free port, for all the api
 * processes. A check, not a lock: what binds between it and the api processes' own bind is not
 * seen.
 */
import { createServer } from 'node:net';
import { ListenError } from '../http/server.js';

export function portToListenOn(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      const where = `${host}:${port}`;
      if (err.code === 'EADDRINUSE') {
        reject(new ListenError(`cannot listen on ${where}: something listens there already (a laurel started before? stop it first), or set PORT`));
      } else {
        reject(new ListenError(`cannot listen on ${where} (${err.code ?? err.message}): set PORT (or HOST)`));
      }
    });
    probe.listen({ host, port, exclusive: true }, () => {
      const addr = probe.address();
      const bound = typeof addr === 'object' && addr !== null ? addr.port : 0;
      probe.close(() => (bound > 0 ? resolve(bound) : reject(new ListenError(`found no port to listen on at ${host}`))));
    });
  });
}
