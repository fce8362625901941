/**
 * `laurel loadtest`'s options (docs/load-testing.md), read and checked: anything
 * wrong is refused with the usage before a request is sent.
 */
import { parseOptions, type OptionSpec } from '../lib/cli-options.js';
import { SettingsError } from '../lib/settings.js';
import { loadScenario, type Scenario } from './scenario.js';
import type { Schedule } from './schedule.js';

export const LOADTEST_USAGE = 'laurel loadtest --url <base> --key <admin key> [--rate <n> | --ramp <from>:<to>] [--duration <s>] ' +
  '[--users <n>] [--connections <n>] [--workers <n>] [--scenario events|mixed|<file.json>] [--batch <n>] [--out <file.json>] ' +
  '[--html <file.html>] [--keep] [--tenant <customerId>] [--no-setup --metric <key> [--points <key>] [--leaderboard <key>]] [--timeout <s>]';

export const LOADTEST_OPTIONS: OptionSpec = {
  usage: LOADTEST_USAGE,
  values: ['--url', '--key', '--rate', '--ramp', '--duration', '--users', '--connections', '--workers', '--scenario', '--batch',
    '--out', '--html', '--tenant', '--metric', '--points', '--leaderboard', '--timeout'],
  switches: ['--keep', '--no-setup'],
};

export interface LoadtestOptions {
  url: string;
  key: string;
  /** The schedule's rates: requests per second (events per second under --batch). */
  schedule: Schedule;
  users: number;
  connections: number;
  workers: number;
  scenario: Scenario;
  /** Items per batch; 0 without --batch. */
  batch: number;
  out: string | null;
  html: string | null;
  keep: boolean;
  setup: boolean;
  /** An existing tenant to use (its customer id); null: one of the run's own, or the default one under --no-setup. */
  tenant: string | null;
  metric: string | null;
  points: string | null;
  leaderboard: string | null;
  timeoutS: number;
}

/** Parses the options after `laurel loadtest`; `--help` answers null. */
export function parseLoadtestOptions(args: string[]): LoadtestOptions | null {
  const o = parseOptions(args, LOADTEST_OPTIONS);
  if (o.help) return null;
  const refuse = (why: string) => new SettingsError(`${why}\nusage: ${LOADTEST_USAGE}`);
  const value = (name: string) => o.values.get(name);
  const number = (name: string, fallback: number, min: number, max: number, integer: boolean): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
      throw refuse(`${name} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, not "${raw}"`);
    }
    return n;
  };

  const url = value('--url');
  if (url === undefined) throw refuse('--url is needed: the base URL of the installation (http://host:port)');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse(`--url "${url}" is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw refuse(`--url must be http:// or https://, not "${parsed.protocol}"`);
  if (parsed.search !== '' || parsed.hash !== '') throw refuse('--url takes no query or fragment');
  const key = value('--key');
  if (key === undefined || key === '') throw refuse('--key is needed: an admin API key of the installation');

  const durationS = number('--duration', 30, 1, 86_400, false);
  if (value('--rate') !== undefined && value('--ramp') !== undefined) throw refuse('give --rate or --ramp, not both');
  let schedule: Schedule;
  const ramp = value('--ramp');
  if (ramp !== undefined) {
    const m = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(ramp);
    if (m === null) throw refuse(`--ramp must be <from>:<to> (requests per second, e.g. 100:2000), not "${ramp}"`);
    const [from, to] = [Number(m[1]), Number(m[2])];
    if (from > 1_000_000 || to > 1_000_000 || from + to === 0) throw refuse('--ramp rates must be from 0 to 1000000, not both 0');
    schedule = { from, to, durationS };
  } else {
    const rate = number('--rate', 100, 0.1, 1_000_000, false);
    schedule = { from: rate, to: rate, durationS };
  }

  const workers = number('--workers', 1, 1, 64, true);
  const connections = number('--connections', 64, 1, 100_000, true);
  if (connections < workers) throw refuse(`--connections (${connections}) must be at least --workers (${workers}): each process needs one`);
  const batch = number('--batch', 0, 1, 1000, true);
  const scenario = loadScenario(value('--scenario') ?? 'events');
  if (batch > 0 && Object.entries(scenario.operations).some(([op, w]) => op !== 'event' && (w ?? 0) > 0)) {
    throw refuse('--batch sends the events of a scenario of events only (reads are not batched): use --scenario events');
  }
  if (batch > 0 && !((scenario.operations.event ?? 0) > 0)) throw refuse('--batch needs a scenario with events');

  const setup = !o.switches.has('--no-setup');
  const metric = value('--metric') ?? null;
  if (!setup && metric === null) throw refuse('--no-setup needs --metric <key>: the metric the events go to');
  for (const name of ['--metric', '--points', '--leaderboard']) {
    if (setup && value(name) !== undefined) throw refuse(`${name} names what exists: it goes with --no-setup (without it the run sets up its own)`);
  }
  const tenant = value('--tenant') ?? null;
  return {
    url: parsed.href.replace(/\/+$/, ''), key, schedule,
    users: number('--users', 10_000, 1, 100_000_000, true), connections, workers, scenario, batch,
    out: value('--out') ?? null, html: value('--html') ?? null, keep: o.switches.has('--keep'), setup, tenant,
    metric, points: value('--points') ?? null, leaderboard: value('--leaderboard') ?? null,
    timeoutS: number('--timeout', 10, 1, 600, false),
  };
}
