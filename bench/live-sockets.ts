/**
 * The sockets of `npm run bench:live` (bench/live.ts), in a process of their own (forked, told
 * what to do over IPC): `connect` opens the sockets (`ws`, a few hundred at a time) and subscribes
 * each to one topic, answering once every one is subscribed; `probe` posts an event every
 * PROBE_MS for a few probe users (whose own sockets are among them) and notes when each was
 * answered, and when each socket got the message it caused: the probe user's `points.changed` on
 * its topic and its `leaderboard.rank_changed` on the board's 1,000 sockets, in this process's one
 * clock; `stop` answers the latencies; `close` closes every socket. Any other message is counted
 * and dropped unparsed.
 */
import WebSocket from 'ws';
import { Agent, fetch } from 'undici';

interface Connect { cmd: 'connect'; url: string; key: string; board: string; boardSockets: number; userSockets: number; probes: number }
interface Probe { cmd: 'probe'; eventUrl: string; key: string }
type Command = Connect | Probe | { cmd: 'stop' } | { cmd: 'close' };

const PROBE_MS = 50;
/** Sockets being opened at once. */
const OPENING = 200;

let sockets: WebSocket[] = [];
let probeUsers: string[] = [];
let received = 0;
/** `<kind>|<user>|<value>` -> when each socket got it (ms). */
const arrivals = new Map<string, number[]>();
/** The same key -> when its event was answered (ms). */
const answered = new Map<string, number>();
let probing: NodeJS.Timeout | null = null;
let probesSent = 0;
let probeErrors = 0;
const now = () => performance.timeOrigin + performance.now();

const PROBE = Buffer.from('live-probe-');

function onMessage(data: WebSocket.RawData): void {
  received++;
  // Only the probes' messages are read; the rest are counted (a look at the bytes, no string made).
  if (!(data as Buffer).includes(PROBE)) return;
  const at = now();
  const text = data.toString();
  const m = JSON.parse(text) as { topic: string; type: string; data: any };
  let key: string | null = null;
  if (m.type === 'points.changed' && m.topic.startsWith('user:')) key = `user|${m.data.user.id}|${m.data.points.total}`;
  if (m.type === 'leaderboard.rank_changed' && m.topic.startsWith('leaderboard:')) key = `board|${m.data.user.id}|${m.data.leaderboard.value}`;
  if (key === null) return;
  let list = arrivals.get(key);
  if (list === undefined) arrivals.set(key, (list = []));
  list.push(at);
}

async function connect(c: Connect): Promise<{ sockets: number; ms: number }> {
  const started = now();
  probeUsers = Array.from({ length: c.probes }, (_, i) => `live-probe-${i}`);
  const topics: string[] = [];
  for (let i = 0; i < c.boardSockets; i++) topics.push(`leaderboard:${c.board}`);
  for (const p of probeUsers) topics.push(`user:${p}`);
  for (let i = 0; topics.length < c.boardSockets + c.userSockets; i++) topics.push(`user:user-${i}`);
  const url = `${c.url}?key=${encodeURIComponent(c.key)}`;
  const open = (topic: string) => new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on('error', reject);
    ws.on('open', () => ws.send(JSON.stringify({ subscribe: [topic] })));
    const first = (data: WebSocket.RawData) => {
      if (!data.toString().includes('"subscribed"')) return;
      ws.off('message', first);
      ws.on('message', onMessage);
      resolve(ws);
    };
    ws.on('message', first);
  });
  sockets = [];
  for (let i = 0; i < topics.length; i += OPENING) {
    sockets.push(...await Promise.all(topics.slice(i, i + OPENING).map(open)));
  }
  return { sockets: sockets.length, ms: Math.round(now() - started) };
}

function probe(p: Probe): void {
  const agent = new Agent({ connections: 4 });
  let k = 0;
  probing = setInterval(() => {
    const user = probeUsers[k++ % probeUsers.length];
    probesSent++;
    fetch(p.eventUrl, {
      method: 'POST', dispatcher: agent, headers: { 'x-api-key': p.key, 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: user }, value: 1000 }),
    }).then(async (res) => {
      const at = now();
      const body = await res.text();
      if (res.status !== 201) { probeErrors++; return; }
      // The messages it causes carry the totals it answers: the points' on the user's topic, the metric's on the board's.
      const answer = JSON.parse(body) as { total: number; points: Record<string, { total: number }> };
      answered.set(`user|${user}|${answer.points.xp.total}`, at);
      answered.set(`board|${user}|${answer.total}`, at);
    }, () => { probeErrors++; });
  }, PROBE_MS);
}

function percentile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** The latencies, answer to arrival, of each kind: every socket's arrival counts once. */
function latencies(kind: 'user' | 'board', perEvent: number): Record<string, number | null> {
  const samples: number[] = [];
  let missing = 0;
  for (const [key, at] of answered) {
    if (!key.startsWith(`${kind}|`)) continue;
    const got = arrivals.get(key) ?? [];
    for (const t of got) samples.push(t - at);
    missing += Math.max(0, perEvent - got.length);
  }
  samples.sort((a, b) => a - b);
  const r = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);
  return {
    events: [...answered.keys()].filter((k) => k.startsWith(`${kind}|`)).length, deliveries: samples.length, missing,
    p50: r(percentile(samples, 0.5)), p90: r(percentile(samples, 0.9)), p99: r(percentile(samples, 0.99)), max: r(samples.at(-1) ?? null),
  };
}

process.on('message', (cmd: Command) => {
  const reply = (x: unknown) => process.send!(x);
  if (cmd.cmd === 'connect') {
    received = 0;
    connect(cmd).then(reply, (err: unknown) => reply({ error: String(err) }));
  } else if (cmd.cmd === 'probe') {
    arrivals.clear();
    answered.clear();
    probesSent = 0;
    probeErrors = 0;
    probe(cmd);
    reply({ ok: true });
  } else if (cmd.cmd === 'stop') {
    if (probing !== null) clearInterval(probing);
    probing = null;
    // The last events' messages: give them a second to arrive.
    setTimeout(() => {
      const boardSockets = sockets.length > 0 ? Number(process.env.BENCH_LIVE_BOARD_SOCKETS ?? 1000) : 0;
      reply({ probesSent, probeErrors, received, user: latencies('user', 1), board: latencies('board', boardSockets) });
    }, 1000);
  } else if (cmd.cmd === 'close') {
    for (const ws of sockets) ws.terminate();
    sockets = [];
    reply({ ok: true });
  }
});
