/**
 * A generator process of `laurel loadtest` (forked by src/loadtest/run.ts, one per
 * `--workers`): sends its share of the open loop's schedule (src/loadtest/schedule.ts) over
 * keep-alive connections (an undici Pool, one request at a time on a connection), each request at
 * its due time whether or not earlier ones were answered, and records every latency from the due
 * time (HdrHistogram, src/loadtest/histogram.ts): a server that stalls shows its queueing in
 * every request due during the stall (no coordinated omission).
 *
 * A request due while every connection is busy waits in the client for one (counted as
 * `waitedForConnection`), its latency still counted from its due time. Timers in Node fire a
 * millisecond or so late, so the process sleeps on a timer only until a millisecond before the
 * next request is due and turns the event loop (answers are read meanwhile) for the rest: the
 * generator's own delay, reported as the send delay, stays well under a millisecond while it
 * keeps up. Each second it tells the command what it sent and what was answered; at the end, its
 * histograms.
 *
 * Batches (`batch`): the 202 answers the request; the process then follows the batch's progress
 * (`GET /admin/v1/metrics/events/<id>`, every 100 ms, on a connection of its own) and records the
 * time from the 202 until every item is processed as the operation `batch-processed`.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { encode, newHistogram, recordMs, type Histogram } from './histogram.js';
import type { GeneratorConfig, OperationName, OperationResult, ParentMessage, WorkerMessage } from './protocol.js';
import { basePath, drawOperation, READS_OF_A_USER, requestOf } from './requests.js';
import { dueAt, scheduledTotal } from './schedule.js';

/** The poll interval of a batch's progress. */
const BATCH_POLL_MS = 100;

interface OpState {
  scheduled: number;
  sent: number;
  answered: number;
  statuses: Record<string, number>;
  unanswered: number;
  histogram: Histogram;
  items: number;
}

function send(m: WorkerMessage): void {
  process.send?.(m);
}

/**
 * Opens every connection before the load (one `GET /health` on each at once), so that the first
 * second does not pay the connects: a load's connections stay open while it runs.
 */
async function warm(pool: Pool, c: GeneratorConfig): Promise<void> {
  await Promise.all(Array.from({ length: c.connections }, async () => {
    const res = await pool.request({ method: 'GET', path: `${basePath(c.url)}/health` });
    await res.body.dump();
  }));
}

function poolOf(c: GeneratorConfig): Pool {
  const timeoutMs = c.timeoutS * 1000;
  return new Pool(new URL(c.url).origin, {
    connections: c.connections, pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs,
  });
}

function run(c: GeneratorConfig, pool: Pool, startAtEpochMs: number): void {
  const t0 = startAtEpochMs - performance.timeOrigin;
  const now = () => performance.now() - t0;
  const base = basePath(c.url);
  const origin = new URL(c.url).origin;
  const timeoutMs = c.timeoutS * 1000;
  const headers: Record<string, string> = { 'x-api-key': c.key, 'content-type': 'application/json' };
  if (c.tenant !== null) headers['tenant-id'] = c.tenant;

  const ops = new Map<string, OpState>();
  const op = (name: string, items = 1): OpState => {
    let s = ops.get(name);
    if (s === undefined) {
      s = { scheduled: 0, sent: 0, answered: 0, statuses: {}, unanswered: 0, histogram: newHistogram(), items };
      ops.set(name, s);
    }
    return s;
  };
  for (const m of c.mix) op(m.name, m.name === 'batch' ? c.batch : 1);

  const sendDelay = newHistogram();
  const second = newHistogram();
  let tick = { sent: 0, answered: 0, failed: 0 };
  /** The second of the run whose line is being counted (0: the first). */
  let k = 0;
  /**
   * Sends the lines of the seconds that ended by `t` (ms from the start): a send or an answer
   * counts in the second it happened, however late the timer that sends the lines runs.
   */
  const roll = (t: number) => {
    while (t >= (k + 1) * 1000) {
      send({ type: 'tick', second: k++, ...tick, histogram: encode(second) });
      second.reset();
      tick = { sent: 0, answered: 0, failed: 0 };
    }
  };
  let waitedForConnection = 0;
  let inFlight = 0;
  /** Users an event was answered 2xx for: the reads of a user pick among them (404 otherwise). */
  const known: number[] = [];
  const knownSet = new Set<number>();

  const total = scheduledTotal(c.schedule);
  let next = c.worker;
  let lateBy = 0;

  const failed = (status: string) => !(status.length === 3 && status[0] === '2');

  /** Counts an answer (latency in ms from the due time), or a request without one (latency null). */
  const answer = (s: OpState, status: string, latency: number | null, inTick = true) => {
    s.statuses[status] = (s.statuses[status] ?? 0) + 1;
    if (latency === null) {
      s.unanswered++;
    } else {
      s.answered++;
      recordMs(s.histogram, latency);
    }
    if (!inTick) return;
    roll(now());
    if (latency !== null) {
      recordMs(second, latency);
      tick.answered++;
    }
    if (failed(status)) tick.failed++;
  };

  /** Batches accepted whose progress is followed until every item is processed. */
  const polls: { id: string; acceptedAt: number }[] = [];
  let followed = 0;
  let stopped = false;

  const fire = (due: number, t: number) => {
    let name: OperationName = drawOperation(c.mix, Math.random());
    // A read of a user before any user exists would be a 404 of the test's making: an event instead.
    if (READS_OF_A_USER.has(name) && known.length === 0) name = c.mix.some((m) => m.name === 'event') ? 'event' : name;
    const user = READS_OF_A_USER.has(name) && known.length > 0 ? known[Math.floor(Math.random() * known.length)]! : Math.floor(Math.random() * c.users);
    const s = op(name);
    s.scheduled++;
    s.sent++;
    roll(t);
    tick.sent++;
    if (inFlight >= c.connections) waitedForConnection++;
    else recordMs(sendDelay, t - due);
    inFlight++;
    const spec = requestOf(name, c, base, user);
    pool.request({ method: spec.method, path: spec.path, headers, body: spec.body ?? undefined })
      .then(async (res) => {
        const text = name === 'batch' && res.statusCode === 202 ? await res.body.text() : (await res.body.dump(), '');
        const at = now();
        inFlight--;
        const status = String(res.statusCode);
        answer(s, status, at - due);
        if (name === 'event' && res.statusCode < 300 && !knownSet.has(user) && known.length < 100_000) {
          knownSet.add(user);
          known.push(user);
        }
        if (name === 'batch' && res.statusCode === 202) {
          const id = (JSON.parse(text) as { batchId?: string }).batchId;
          if (typeof id === 'string') {
            followed++;
            polls.push({ id, acceptedAt: at });
          }
        }
        pump();
      }, (err: unknown) => {
        inFlight--;
        const code = (err as { code?: string }).code ?? (err as Error).name ?? 'error';
        answer(s, code, null);
        pump();
      });
  };

  let timer: NodeJS.Timeout | null = null;
  let spinning = false;
  let finishing = false;

  function pump(): void {
    const t = now();
    while (next < total) {
      const due = dueAt(c.schedule, next);
      if (due > t) break;
      lateBy = Math.max(lateBy, t - due);
      fire(due, t);
      next += c.workers;
    }
    if (next < total) {
      const wait = dueAt(c.schedule, next) - now();
      if (wait > 1.5) {
        if (timer === null && !spinning) timer = setTimeout(() => { timer = null; pump(); }, wait - 1);
      } else if (!spinning && timer === null) {
        spinning = true;
        setImmediate(() => { spinning = false; pump(); });
      }
    } else if (!finishing) {
      finishing = true;
      void finish();
    }
  }

  // A line each second of the run, at t0 + 1 s, t0 + 2 s, ...: the second's sends and answers.
  let ticker: NodeJS.Timeout;
  const nextTick = () => {
    ticker = setTimeout(() => {
      roll(now());
      nextTick();
    }, Math.max(0, (k + 1) * 1000 - now()));
  };
  nextTick();

  const pollPool = new Pool(origin, { connections: 2, pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const processed = c.mix.some((m) => m.name === 'batch') ? op('batch-processed', c.batch) : null;
  let polling: NodeJS.Timeout | null = null;
  const pollOnce = async () => {
    const due = polls.splice(0, polls.length);
    await Promise.all(due.map(async (p) => {
      try {
        const res = await pollPool.request({ method: 'GET', path: `${base}/admin/v1/metrics/events/${encodeURIComponent(p.id)}`, headers });
        const body = await res.body.text();
        if (stopped) return;
        if (res.statusCode !== 200) {
          followed--;
          processed!.scheduled++;
          answer(processed!, String(res.statusCode), null, false);
          return;
        }
        const b = JSON.parse(body) as { accepted: number; processed: number; failed: number };
        if (b.processed + b.failed >= b.accepted) {
          followed--;
          processed!.scheduled++;
          processed!.sent++;
          answer(processed!, b.failed > 0 ? 'items-failed' : '200', now() - p.acceptedAt, false);
        } else {
          polls.push(p);
        }
      } catch (err) {
        if (stopped) return;
        followed--;
        processed!.scheduled++;
        answer(processed!, (err as { code?: string }).code ?? 'error', null, false);
      }
    }));
  };
  if (processed !== null) {
    const loop = async () => {
      await pollOnce();
      if (!stopped) polling = setTimeout(() => void loop(), BATCH_POLL_MS);
    };
    polling = setTimeout(() => void loop(), BATCH_POLL_MS);
  }

  // How late the process's own event loop ran (sampled every millisecond): the time an answer
  // waited to be read, or a send to go out, because this process was not running (a busy core).
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpuAt = process.cpuUsage();
  const wallAt = performance.now();

  async function finish(): Promise<void> {
    const until = now() + timeoutMs;
    while ((inFlight > 0 || followed > 0) && now() < until) await new Promise((r) => setTimeout(r, 20));
    if (polling !== null) clearTimeout(polling);
    stopped = true;
    // What is still waiting for its progress counts as not processed within the wait.
    for (; followed > 0; followed--) {
      processed!.scheduled++;
      answer(processed!, 'not-processed', null, false);
    }
    loop.disable();
    // Each sample is the time between two runs of a 1 ms timer: what is past the millisecond is lateness.
    const lateMs = (ns: number) => Math.max(0, ns / 1e6 - 1);
    const loopDelayMs = { p50: lateMs(loop.percentile(50)), p90: lateMs(loop.percentile(90)), p99: lateMs(loop.percentile(99)), max: lateMs(loop.max) };
    const cpu = process.cpuUsage(cpuAt);
    const cpuPercent = ((cpu.user + cpu.system) / 1000 / (performance.now() - wallAt)) * 100;
    clearTimeout(ticker);
    // The last, partial second.
    send({ type: 'tick', second: k, ...tick, histogram: encode(second) });
    const operations: Record<string, OperationResult> = {};
    for (const [name, s] of ops) {
      // Requests still in flight when the wait ran out: never answered.
      operations[name] = {
        scheduled: s.scheduled, sent: s.sent, answered: s.answered, statuses: s.statuses,
        unanswered: s.unanswered + Math.max(0, s.sent - s.answered - s.unanswered), histogram: encode(s.histogram), items: s.items,
      };
      const stuck = s.sent - s.answered - s.unanswered;
      if (stuck > 0) operations[name]!.statuses.timeout = (operations[name]!.statuses.timeout ?? 0) + stuck;
    }
    await Promise.allSettled([pool.destroy(), pollPool.destroy()]);
    const done: WorkerMessage = { type: 'done', operations, sendDelay: encode(sendDelay), loopDelayMs, waitedForConnection, cpuPercent, lateBy };
    process.send?.(done, () => process.exit(0));
  }

  stopNow = () => {
    // Ctrl-C: nothing more is sent; what is in flight is waited for as at the end.
    next = total;
    pump();
  };
  const wait = -now();
  timer = setTimeout(() => { timer = null; pump(); }, Math.max(0, wait - 1));
}

let stopNow: () => void = () => process.exit(0);

let started: { config: GeneratorConfig; pool: Pool } | null = null;

process.on('message', (m: ParentMessage) => {
  if (m.type === 'start') {
    const pool = poolOf(m.config);
    started = { config: m.config, pool };
    warm(pool, m.config).then(() => send({ type: 'warm' }), (err: unknown) => {
      const cause = (err as { code?: string }).code ?? (err as Error).message;
      send({ type: 'error', message: `cannot reach ${m.config.url} (GET /health): ${cause}` });
    });
  } else if (m.type === 'go' && started !== null) {
    try {
      run(started.config, started.pool, m.startAtEpochMs);
    } catch (err) {
      send({ type: 'error', message: (err as Error).message });
    }
  } else if (m.type === 'stop') {
    stopNow();
  }
});
send({ type: 'ready' });
