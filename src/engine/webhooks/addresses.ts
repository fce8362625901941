/**
 * Where a webhook may be sent (API.md, "Webhooks"): `http` or `https`, and not to loopback, private,
 * link-local or otherwise internal addresses unless LAUREL_WEBHOOKS_ALLOW_PRIVATE=1 (tests and
 * receivers on the premises). A name is judged by the addresses it resolves to, when sending.
 */
import { isIP } from 'node:net';

/** Whether an IP address (v4 or v6, as text) is loopback, private, link-local, unspecified or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const v = isIP(address);
  if (v === 4) {
    const [a, b] = address.split('.').map(Number);
    return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254)
      || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || a >= 224;
  }
  if (v === 6) {
    const x = address.toLowerCase();
    if (x === '::' || x === '::1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(x);
    if (mapped) return isPrivateAddress(mapped[1]);
    return /^f[cd]/.test(x) || /^fe[89ab]/.test(x) || x.startsWith('ff');
  }
  return false;
}

/** Why a URL cannot take webhooks, or null: its form, or an address it names literally. */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must use http or https';
  if (url.username !== '' || url.password !== '') return 'url must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host))) {
    return 'url points at a loopback or private address (allowed with LAUREL_WEBHOOKS_ALLOW_PRIVATE=1)';
  }
  return null;
}
