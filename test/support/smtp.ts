/**
 * A real SMTP server in-process on loopback (smtp-server) that receives every message, and
 * mailparser reading each one: the mail catcher of the notification tests. It can stop and start
 * again on the same port (SMTP down, then up), and answer each message `delayMs` after it arrived
 * (a slow server: the sender waits that long for its acknowledgement).
 */
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface MailCatcher {
  port: number;
  url: string;
  messages: ParsedMail[];
  /** The envelope's recipients of each message, in order. */
  recipients: string[][];
  /** The messages to an address. */
  to(address: string): ParsedMail[];
  /** Waits until `n` messages have arrived in all. */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

export async function startMailCatcher(opts: { delayMs?: number } = {}): Promise<MailCatcher> {
  const messages: ParsedMail[] = [];
  const recipients: string[][] = [];
  let port = 0;
  let server: SMTPServer | null = null;
  const listen = async () => {
    const s = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        simpleParser(stream).then((mail) => {
          messages.push(mail);
          recipients.push(session.envelope.rcptTo.map((r) => r.address));
          if (opts.delayMs) setTimeout(() => callback(), opts.delayMs);
          else callback();
        }, callback);
      },
    });
    s.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      s.server.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.server.address() as { port: number }).port;
    server = s;
  };
  await listen();
  return {
    get port() { return port; },
    get url() { return `smtp://127.0.0.1:${port}`; },
    messages,
    recipients,
    to: (address) => messages.filter((m, i) => recipients[i].includes(address)),
    async waitFor(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (messages.length < n) {
        if (Date.now() > until) throw new Error(`${messages.length} messages arrived, not ${n}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop() {
      const s = server;
      server = null;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    start: listen,
  };
}
