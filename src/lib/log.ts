import { pino, type Logger } from 'pino';

/** One pino logger per process; children add the component name. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { pid: process.pid, service: 'laurel' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['apiKey', '*.apiKey', 'key.secret'], censor: '[redacted]' },
  });
}
