#!/usr/bin/env node
/**
 * laurel's command line (docs/operations.md, "Building and starting"): `laurel <command>`, its
 * commands listed in USAGE below; `laurel` alone prints them and runs nothing.
 */
// First: refuses a Node.js laurel does not run on before uWebSockets.js's binary is loaded.
import './app/node-check.js';
import type { Logger } from 'pino';
import { startApi } from './app/api.js';
import { prepareInstallation } from './app/prepare.js';
import { portToListenOn } from './app/port.js';
import { API_PROCESS_COMMAND, apiProcessCount, PRIMARY_SHUTDOWN_LIMIT_MS, startApiProcesses, type ReadyMessage } from './app/processes.js';
import { onSignals, type Closer } from './app/shutdown.js';
import { metricsThroughPrimary } from './app/metrics-ipc.js';
import { connect } from './engine/services.js';
import { guardInstallation, restoreWith } from './engine/installation-check.js';
import { takeSnapshot } from './engine/durability/snapshot.js';
import { generateKey } from './http/auth.js';
import { LaurelError } from './lib/errors.js';
import { createLogger } from './lib/log.js';
import { parseOptions, type OptionSpec, type Options } from './lib/cli-options.js';
import { loadSettings, SettingsError, type Settings } from './lib/settings.js';
import { postgresHoldsData } from './postgres/installation-data.js';
import { connectPostgres } from './postgres/pool.js';
import { startWorkers } from '../workers/index.js';

/** Each command's options (src/lib/cli-options.ts). */
const COMMANDS: Record<string, OptionSpec> = {
  start: { usage: 'laurel start' },
  api: { usage: 'laurel api' },
  workers: { usage: 'laurel workers' },
  keys: { usage: 'laurel keys create [--kind admin|application] [--tenant <id>] [--name <name>]', values: ['--kind', '--tenant', '--name'] },
  snapshot: { usage: 'laurel snapshot [--full]', switches: ['--full'] },
  restore: { usage: 'laurel restore [--force]', switches: ['--force'] },
};

/** What `laurel`, `laurel --help` and `laurel help` print. */
const USAGE = `usage: laurel <command> [options]

commands:
  start       the api and the workers (what npm start runs): LAUREL_API_PROCESSES api processes
              (one per core by default) on PORT, the workers beside them
  api         the api only, LAUREL_API_PROCESSES processes on one port
  workers     the workers only (run as many as needed)
  keys create [--kind admin|application] [--tenant <id>] [--name <name>]
              makes an API key and prints it once
  snapshot [--full]
              takes a snapshot of Redis into Postgres now
  restore [--force]
              rebuilds an empty Redis from Postgres (--force: deletes what it holds first)
  loadtest --url <base> --key <admin key> [...]
              drives an installation at a rate and reports what it sustained
  loadtest --cleanup <run id> --url <base> --key <admin key>
              removes what a killed or --keep run left
  import <file> --url <base> --key <admin key> [--tenant <id>] [--part <events>]
              imports a history of events (NDJSON or a JSON array), in the order they happened

\`laurel <command> --help\` prints a command's options. The settings come from the environment
(REDIS_URL, DATABASE_URL, LAUREL_PREFIX, PORT, HOST, LAUREL_ADMIN_KEY, ...: docs/operations.md).
`;

async function keysCreate(settings: Settings, log: Logger, options: Options): Promise<void> {
  const kind = options.values.get('--kind') ?? 'admin';
  if (kind !== 'admin' && kind !== 'application') throw new SettingsError(`--kind must be admin or application\nusage: ${COMMANDS.keys!.usage}`);
  const svc = await connect(settings, log);
  // A key written into a Redis that lost the installation would make it look like one (a version,
  // a key), and the workers' next snapshot would replace what Postgres keeps for a restore.
  await guardInstallation(svc, log);
  try {
    const tenantRef = options.values.get('--tenant');
    let tenantId: string | null = null;
    if (tenantRef !== undefined) {
      const t = svc.store.current.tenants.get(tenantRef) ?? svc.store.current.tenantsByCustomerId.get(tenantRef);
      if (!t) throw new SettingsError(`tenant "${tenantRef}" not found`);
      tenantId = t.id;
    }
    const fresh = generateKey(kind, options.values.get('--name') ?? `${kind} key`, tenantId, new Date(svc.clock.now()).toISOString());
    await svc.store.put('apikeys', 'create', fresh.record);
    process.stdout.write(`${fresh.key}\n`);
  } finally {
    await svc.close();
  }
}

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  // No command runs nothing: a service started by a bare `laurel` could serve (and snapshot) an
  // installation one did not mean to.
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? process.stderr : process.stdout).write(USAGE);
    if (command === undefined) process.exitCode = 1;
    return;
  }
  // The load generator needs none of the installation's settings (it drives one over HTTP), and
  // its code loads only for it.
  if (command === 'loadtest') {
    const { loadtestCommand } = await import('./loadtest/command.js');
    process.exitCode = await loadtestCommand(args);
    return;
  }
  // So does the import: it sends a file to an installation over HTTP.
  if (command === 'import') {
    const { importCommand } = await import('./import/command.js');
    process.exitCode = await importCommand(args);
    return;
  }
  const spec = COMMANDS[command];
  // `keys` has a subcommand, `create`, its only one.
  if (command === 'keys' && args[0] !== 'create' && args[0] !== '--help' && args[0] !== '-h') {
    throw new SettingsError(`usage: ${COMMANDS.keys!.usage}`);
  }
  const options = spec === undefined ? null : parseOptions(command === 'keys' && args[0] === 'create' ? args.slice(1) : args, spec);
  if (options?.help) {
    process.stdout.write(`usage: ${spec!.usage}\n`);
    return;
  }
  const loaded = loadSettings();
  // A command that serves finds its port free first (a laurel left running on it would share it).
  const settings = command === 'start' || command === 'api' ? { ...loaded, port: await portToListenOn(loaded.host, loaded.port) } : loaded;
  const log = createLogger(settings.logLevel);
  switch (command) {
    case 'start': {
      // Signals are taken from the start: the api process answers /ready before the primary has
      // heard it listens, and a signal then stops both once they have started.
      const starting = startAll(settings, log);
      onSignals(log, starting, { limitMs: PRIMARY_SHUTDOWN_LIMIT_MS });
      await starting;
      break;
    }
    case 'api': {
      if (apiProcessCount(settings, false) === 1) {
        const starting = startApi(settings, log).then((api) => [() => api.close()]);
        onSignals(log, starting);
        await starting;
        break;
      }
      const starting = startApiOnly(settings, log);
      onSignals(log, starting, { limitMs: PRIMARY_SHUTDOWN_LIMIT_MS });
      await starting;
      break;
    }
    case API_PROCESS_COMMAND: {
      // One api process of several, forked by the primary of `laurel start` or `laurel api`.
      const send = process.send?.bind(process);
      if (send === undefined) {
        throw new SettingsError(`"${API_PROCESS_COMMAND}" is started by laurel start or laurel api (LAUREL_API_PROCESSES); run laurel api`);
      }
      const starting = startApi(settings, log, undefined, { prepared: true, scrape: (metrics) => metricsThroughPrimary(metrics, send) });
      onSignals(log, starting.then((started) => [() => started.close()]), { withParent: true });
      const api = await starting;
      const listening: ReadyMessage = { type: 'laurel:listening', port: api.port };
      if (process.connected) send(listening);
      break;
    }
    case 'workers': {
      // Signals are taken from the start: one that comes while the workers start (their queues may
      // already be sending) stops them in order once they have started.
      const starting = startWorkers(settings, log).then((workers) => [(deadline: number) => workers.close(deadline)]);
      onSignals(log, starting);
      await starting;
      break;
    }
    case 'keys':
      await keysCreate(settings, log, options!);
      break;
    case 'snapshot': {
      const svc = await connect(settings, log);
      await guardInstallation(svc, log);
      const pool = await connectPostgres(settings);
      try {
        const r = await takeSnapshot(svc, pool, options!.switches.has('--full'));
        if (r === null) process.stdout.write('nothing to snapshot: a new installation, nothing configured yet\n');
        else process.stdout.write(`snapshot ${r.id} taken (${r.full ? 'full' : 'what changed since the last one'}): ` +
          `${r.users} users, ${r.keys} other keys (${r.written} written) in ${r.ms} ms\n`);
      } finally {
        await pool.end();
        await svc.close();
      }
      break;
    }
    case 'restore': {
      const pool = await connectPostgres(settings);
      try {
        // A prefix Postgres has never seen (a typo) would "restore" an empty installation, and say so as a success.
        if (!(await postgresHoldsData(pool, settings.prefix))) {
          throw new SettingsError(`Postgres holds nothing of installation "${settings.prefix}": nothing to restore (is LAUREL_PREFIX right?)`);
        }
        const r = await restoreWith(settings, log, pool, options!.switches.has('--force'));
        process.stdout.write(`restored installation "${settings.prefix}" ` +
          `${r.snapshot === null ? 'from the event log alone (no snapshot)' : `from snapshot ${r.snapshot}`}: ${r.config} configuration entities, ` +
          `${r.users} users and ${r.keys} other keys from the snapshot; ${r.replayed} log entries replayed after it (${r.skipped} already in the snapshot, ` +
          `${r.failed} refused) in ${r.ms} ms\n`);
      } finally {
        await pool.end();
      }
      break;
    }
    default:
      throw new SettingsError(`unknown command "${command}"; use start, api, workers, keys create, snapshot, restore or loadtest (laurel --help)`);
  }
}

/**
 * `laurel start`: the workers in the primary, beside nothing but the api processes' supervision,
 * one api process too: a drain pass in the api's own process would hold its requests behind it
 * (docs/operations.md, "Several api processes"). The api processes start while the workers do
 * (/ready is theirs alone); either failing stops the other: never an api without its workers.
 * Answers the steps of its stop.
 */
async function startAll(settings: Settings, log: Logger): Promise<Closer[]> {
  const services = await prepareInstallation(settings, log);
  const [workers, api] = await Promise.allSettled([
    startWorkers(settings, log, services), startApiProcesses(settings, log, apiProcessCount(settings, true), services.metrics),
  ]);
  if (workers.status === 'rejected' || api.status === 'rejected') {
    if (api.status === 'fulfilled') await api.value.close().catch(() => undefined);
    if (workers.status === 'fulfilled') await workers.value.close().catch(() => undefined);
    await services.close();
    throw workers.status === 'rejected' ? workers.reason : (api as PromiseRejectedResult).reason;
  }
  return [() => api.value.close(), (deadline) => workers.value.close(deadline), () => services.close()];
}

/** `laurel api` with several processes: the primary's Redis connection is needed only for the start-up's work. */
async function startApiOnly(settings: Settings, log: Logger): Promise<Closer[]> {
  const services = await prepareInstallation(settings, log);
  await services.close();
  const api = await startApiProcesses(settings, log, apiProcessCount(settings, false));
  return [() => api.close()];
}

main().catch((err: unknown) => {
  // One of laurel's own (src/lib/errors.ts PROCESS_ERRORS): its message and code; anything else whole.
  process.stderr.write(`laurel: ${err instanceof LaurelError ? `${err.message} [${err.code}]` : (err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
