/**
 * The sockets of `npm run bench:live` (bench/live.ts), in a process of their own (forked, told
 * what to do over IPC): `connect` opens the sockets (`ws`, a few hundred at a time) and subscribes
 * each to one topic, answering once every one is subscribed; from `probe` on, it notes when each
 * socket got a message of the probe users' events (the runner posts them): a probe user's
 * `points.changed` on its topic, its `leaderboard.rank_changed` on the board's sockets, on the
 * machine's clock (performance.timeOrigin + performance.now(), the runner's too); `stop` answers
 * those arrival times; `close` closes every socket. Any other message is counted and dropped
 * unparsed.
 */
import WebSocket from 'ws';

interface Connect { cmd: 'connect'; url: string; key: string; board: string; boardSockets: number; userSockets: number; probes: number }
type Command = Connect | { cmd: 'probe' } | { cmd: 'stop' } | { cmd: 'close' };

/** Sockets being opened at once. */
const OPENING = 200;

let sockets: WebSocket[] = [];
let probeUsers: string[] = [];
let received = 0;
/** `<kind>|<user>|<value>` -> when each socket got it (ms). */
const arrivals = new Map<string, number[]>();
const now = () => performance.timeOrigin + performance.now();

const PROBE = Buffer.from('live-probe-');
/** This process holds the probe users' sockets: it times their messages. */
let timing = false;

function onMessage(data: WebSocket.RawData): void {
  received++;
  // Only the probes' messages are read, in the probe process; the rest are counted (a look at the bytes, no string made).
  if (!timing || !(data as Buffer).includes(PROBE)) return;
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
  timing = c.probes > 0;
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

process.on('message', (cmd: Command) => {
  const reply = (x: unknown) => process.send!(x);
  if (cmd.cmd === 'connect') {
    received = 0;
    connect(cmd).then(reply, (err: unknown) => reply({ error: String(err) }));
  } else if (cmd.cmd === 'probe') {
    arrivals.clear();
    reply({ ok: true });
  } else if (cmd.cmd === 'stop') {
    reply({ received, arrivals: Object.fromEntries(arrivals) });
  } else if (cmd.cmd === 'close') {
    for (const ws of sockets) ws.terminate();
    sockets = [];
    reply({ ok: true });
  }
});
