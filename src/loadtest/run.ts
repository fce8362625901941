/**
 * `laurel loadtest` (docs/load-testing.md): sets up the run's
 * configuration (src/loadtest/admin.ts), forks the generator processes
 * (src/loadtest/generator.ts) on one shared schedule, prints a line each second, merges their
 * figures into the report (src/loadtest/report.ts), writes it (`--out`, `--html`) and removes
 * what it set up. Answers the report; the command exits 1 unless its verdict passes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { AdminError, cleanUp, emptyCreated, probe, setUp, type Created } from './admin.js';
import { merged, percentiles } from './histogram.js';
import { reportHtml } from './html.js';
import type { OperationName, WorkerMessage } from './protocol.js';
import type { LoadtestOptions } from './options.js';
import { buildReport, formatSummary, formatTable, pointOf, type Report } from './report.js';
import { mixOf } from './scenario.js';
import type { Schedule } from './schedule.js';
import { LaurelError } from '../lib/errors.js';

type Tick = Extract<WorkerMessage, { type: 'tick' }>;
type Done = Extract<WorkerMessage, { type: 'done' }>;

const GENERATOR = fileURLToPath(new URL('./generator.js', import.meta.url));

export interface RunHooks {
  /** Where lines go (stdout by default). */
  print?: (line: string) => void;
  /** Aborts the run early (Ctrl-C): nothing more is sent, the report covers what was. */
  signal?: AbortSignal;
}

/** Thrown when the run could not start (setup, probe): nothing was measured. */
export class LoadtestError extends LaurelError {
  constructor(message: string) { super('loadtest_failed', message); }
}

export async function runLoadtest(o: LoadtestOptions, hooks: RunHooks = {}): Promise<Report> {
  const print = hooks.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const runId = randomBytes(4).toString('hex');
  const admin = { url: o.url, key: o.key };
  const created: Created = emptyCreated();
  const userPrefix = `lt-${runId}-`;
  try {
    let tenant = o.tenant;
    let metric = o.metric;
    let points = o.points;
    let leaderboard = o.leaderboard;
    if (o.setup) {
      const notes = await setUp(admin, runId, o.scenario.setup, created, o.tenant === null);
      for (const n of notes) print(`note: ${n}`);
      tenant = o.tenant ?? created.tenant!.customerId;
      metric = created.metric!.key;
      points = created.points?.key ?? null;
      leaderboard = created.leaderboard?.key ?? null;
      print(`set up: ${tenant === o.tenant ? `tenant ${tenant} (given)` : `tenant ${tenant}`}, metric ${metric}` +
        `${created.achievements.length > 0 ? `, ${created.achievements.length} achievements` : ''}${created.streakBefore !== null ? ', a daily streak' : ''}` +
        `${points !== null ? `, points ${points}` : ''}${leaderboard !== null ? `, leaderboard ${leaderboard}` : ''}` +
        `${o.keep ? ' (kept after the run: --keep)' : ' (removed after the run)'}`);
    }
    let mix = mixOf(o.scenario, o.batch > 0);
    const dropped = mix.filter((m) => (m.name === 'points' && points === null) || (m.name === 'leaderboard' && leaderboard === null));
    if (dropped.length > 0) {
      print(`note: no ${dropped.map((m) => m.name).join(' or ')} to read (--points, --leaderboard): left out of the mix`);
      mix = mix.filter((m) => !dropped.includes(m));
      if (mix.length === 0) throw new LoadtestError('nothing left to send');
    }
    await probe(admin, metric!, `${userPrefix}probe`, tenant);
    return await generate(o, { runId, tenant, metric: metric!, points, leaderboard, mix, userPrefix }, print, hooks.signal);
  } catch (err) {
    if (err instanceof AdminError) throw new LoadtestError(err.message);
    throw err;
  } finally {
    if (!o.keep) {
      const left = await cleanUp(admin, created);
      if (left.length > 0) print(`could not remove: ${left.join('; ')}`);
      else if (created.tenant !== null || created.metric !== null) {
        // What the setup made: a run given a tenant (--tenant) made no tenant; one that failed at once, nothing.
        const made = [created.tenant !== null && 'tenant', created.metric !== null && 'configuration'].filter(Boolean).join(' and ');
        print(`removed the run's ${made} (loadtest-${runId})`);
      }
    }
  }
}

interface Target {
  runId: string;
  tenant: string | null;
  metric: string;
  points: string | null;
  leaderboard: string | null;
  mix: { name: OperationName; weight: number }[];
  userPrefix: string;
}

async function generate(o: LoadtestOptions, t: Target, print: (line: string) => void, signal?: AbortSignal): Promise<Report> {
  const items = o.batch > 0 ? o.batch : 1;
  // Under --batch the rates are of events; the schedule is of requests, each a batch.
  const schedule: Schedule = { from: o.schedule.from / items, to: o.schedule.to / items, durationS: o.schedule.durationS };
  const children: ChildProcess[] = [];
  const ticks: Tick[] = [];
  const done: Done[] = [];
  const unit = o.batch > 0 ? 'events' : 'requests';
  const startedAt = new Date().toISOString();
  try {
    await Promise.all(Array.from({ length: o.workers }, () => new Promise<void>((resolve, reject) => {
      const child = fork(GENERATOR, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push(child);
      child.once('message', (m: WorkerMessage) => (m.type === 'ready' ? resolve() : reject(new LoadtestError(`a generator process: ${JSON.stringify(m)}`))));
      child.once('exit', (code) => reject(new LoadtestError(`a generator process exited (${code}) before it started`)));
    })));
    let warmed = 0;
    let resolveWarm!: () => void;
    const allWarm = new Promise<void>((resolve) => { resolveWarm = resolve; });
    let resolveAll!: () => void;
    let rejectAll!: (e: Error) => void;
    const finished = new Promise<void>((resolve, reject) => { resolveAll = resolve; rejectAll = reject; });
    const cumulative = merged([]);
    let printed = -1;
    const perSecond = new Map<number, Tick[]>();
    const reported = new Set<number>();
    children.forEach((child, w) => {
      child.removeAllListeners('exit');
      child.removeAllListeners('message');
      child.on('message', (m: WorkerMessage) => {
        if (m.type === 'warm') {
          if (++warmed === o.workers) resolveWarm();
        } else if (m.type === 'tick') {
          ticks.push(m);
          const at = [...(perSecond.get(m.second) ?? []), m];
          perSecond.set(m.second, at);
          // Once every process told second k, its line (in order; a late process delays it).
          while (perSecond.get(printed + 1)?.length === o.workers) {
            const k = ++printed;
            const parts = perSecond.get(k)!;
            const h = merged(parts.map((p) => p.histogram));
            cumulative.add(h);
            const p = pointOf(k, parts, schedule, h);
            const ms = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(2)} ms`);
            // The second's own p99, as the HTML report plots it, then the run's so far.
            print(`${String(k + 1).padStart(4)}s  asked ${(p.asked * items).toFixed(0)}/s  sent ${p.sent * items}  answered ${p.answered * items}  ` +
              `errors ${p.failed}  p99 ${ms(p.p99)} (so far ${ms(percentiles(cumulative).p99)})`);
          }
        } else if (m.type === 'done') {
          reported.add(w);
          done.push(m);
          if (done.length === o.workers) resolveAll();
        } else if (m.type === 'error') {
          rejectAll(new LoadtestError(`a generator process failed: ${m.message}`));
        }
      });
      child.on('exit', (code) => {
        if (!reported.has(w)) rejectAll(new LoadtestError(`a generator process exited (${code}) before it reported`));
      });
      const connections = Math.floor(o.connections / o.workers) + (w < o.connections % o.workers ? 1 : 0);
      child.send({
        type: 'start',
        config: {
          worker: w, workers: o.workers, schedule, url: o.url, key: o.key, tenant: t.tenant, connections, mix: t.mix,
          metric: t.metric, points: t.points, leaderboard: t.leaderboard, users: o.users, userPrefix: t.userPrefix, batch: items, timeoutS: o.timeoutS,
        },
      });
    });
    await Promise.race([allWarm, finished]);
    const startAtEpochMs = performance.timeOrigin + performance.now() + 100;
    for (const c of children) c.send({ type: 'go', startAtEpochMs });
    const stop = () => { for (const c of children) if (c.connected) c.send({ type: 'stop' }); };
    if (signal?.aborted) stop();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      await finished;
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill();
  }
  const report = buildReport({
    url: o.url, runId: t.runId, scenario: o.scenario.name, startedAt, schedule, items, workers: o.workers, connections: o.connections, done, ticks,
  });
  print('');
  print(formatTable(report));
  print('');
  print(formatSummary(report, unit));
  if (o.out !== null) writeFileSync(o.out, `${JSON.stringify(report, null, 2)}\n`);
  if (o.html !== null) writeFileSync(o.html, reportHtml(report, unit));
  return report;
}
