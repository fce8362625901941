/**
 * A TCP proxy on loopback in front of a real server (the machine's Postgres), for the tests that
 * need it stalled or gone without touching the shared server: `stall()` stops passing bytes either
 * way (queries hang, as on a saturated or stuck server), `flow()` passes them again, `cut()` closes
 * every connection and stops listening (the server went away), `restore()` listens again;
 * `held()` is what waits while stalled, to see that a query was sent.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  stall(): void;
  flow(): void;
  /** The bytes held while stalled, either way, in the order they came. */
  held(): Buffer;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  /** What waits while stalled: the bytes and where they go. */
  let held: [net.Socket, Buffer][] = [];
  let stalled = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const forward = (to: net.Socket) => (d: Buffer) => {
      if (stalled) held.push([to, d]);
      else to.write(d);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', drop).on('close', drop);
    }
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const cut = async () => {
    held = [];
    for (const s of sockets) s.destroy();
    sockets.clear();
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port,
    stall() {
      stalled = true;
    },
    flow() {
      stalled = false;
      for (const [to, d] of held) if (!to.destroyed) to.write(d);
      held = [];
    },
    held: () => Buffer.concat(held.map(([, d]) => d)),
    cut,
    restore: () => listen(port),
    close: cut,
  };
}
