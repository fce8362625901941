/**
 * Ports for the tests' own servers that must come back on the same port (a Redis killed and
 * started again, a Cluster node and its bus): outside the kernel's range for outgoing connections,
 * which any connection the tests open can take between a check that a port is free and the bind
 * (a Cluster's bus port of 35358 was, in a full run).
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** The kernel's range of ports for outgoing connections (Linux's default when it cannot be read). */
export function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low!, high!];
  } catch { /* not Linux: its default below */ }
  return [32768, 60999];
}

/** True when `port` is outside the range of outgoing connections' ports. */
export function outsideEphemeral(port: number, range = ephemeralRange()): boolean {
  return port < range[0] || port > range[1];
}

/** True when nothing listens on `port` of `host` (a listen that succeeds, closed at once). */
export function canBind(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A free port in [min, max] outside the ephemeral range (any free one in [min, max] if the range covers it all). */
export async function stablePort(min = 20000, max = 29999): Promise<number> {
  const range = ephemeralRange();
  for (let draw = 0; draw < 1000; draw++) {
    const port = min + Math.floor(Math.random() * (max - min + 1));
    if ((outsideEphemeral(port, range) || draw > 500) && await canBind(port)) return port;
  }
  throw new Error(`no free port in ${min}-${max}`);
}
