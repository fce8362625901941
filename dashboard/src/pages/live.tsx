/**
 * Live: a board's movements as they happen (docs/live.md), through laurel's live updates client
 * (src/client/live.ts) with the session's key and tenant: the connection's state, the top 10 as
 * `leaderboard.changed` last said it, and the latest moves (`leaderboard.rank_changed`), newest
 * first. A `resync` (a gap the history could not fill) empties what is shown until the next change.
 *
 * Users are shown by name, as the rankings show them, and "new" only when they entered: the board's
 * rankings are read once (the Application API; not on a board with groups) before the topic is
 * followed, and each move is compared with what the page saw (live/places.ts).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Session } from '../api.js';
import { LiveClient, type LiveMessage, type LiveState } from '../../../src/client/live.js';
import { useList } from '../list.js';
import { fetchRun } from './leaderboards/runs.js';
import type { LeaderboardAdminView as Board, LeaderboardChangedData, LeaderboardRankChangedData, RankedView } from '../types.js';
import { Places, type Move } from './live/places.js';

/** Moves kept on screen. */
const KEPT = 50;

/** The live endpoint of the laurel that serves this page. */
const liveUrl = () => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/v1/live`;

function BoardLive({ session, board }: { session: Session; board: Board }) {
  const [state, setState] = useState<LiveState>('connecting');
  const [moves, setMoves] = useState<Move[]>([]);
  const [top, setTop] = useState<RankedView[] | null>(null);
  const [error, setError] = useState('');
  const [following, setFollowing] = useState(false);
  const [names, setNames] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    setFollowing(false);
    setMoves([]);
    setTop(null);
    setError('');
    let client: LiveClient | null = null;
    let closed = false;
    const places = new Places();
    const follow = () => {
      if (closed) return;
      client = new LiveClient({
        url: liveUrl(), key: session.key, ...(session.tenant === '' ? {} : { tenant: session.tenant }),
        onState: (st) => { setState(st); if (st !== 'open') setFollowing(false); }, onError: (e) => setError(e.error),
        onSubscribed: () => setFollowing(true),
      });
      client.subscribe(`leaderboard:${board.key}`, (m: LiveMessage) => {
        if (m.type === 'resync') {
          setMoves([]);
          setTop(null);
        } else if (m.type === 'leaderboard.changed') {
          const lb = (m.data as LeaderboardChangedData).leaderboard;
          places.top(lb.breakdownAttributeValue, lb.rankings);
          setTop(lb.rankings);
        } else if (m.type === 'leaderboard.rank_changed') {
          const move = places.move(m.seq, m.data as LeaderboardRankChangedData);
          setNames(new Map(places.names));
          if (move !== null) setMoves((before) => [move, ...before].slice(0, KEPT));
        }
      });
    };
    // The rankings first (names, and the places moves are compared with), then the topic.
    const read = board.breakdownAttributes.length > 0 ? Promise.resolve(null)
      : fetchRun(session, board.key, '', '', Math.min(board.maxParticipants ?? 1000, 1000)).catch(() => null);
    void read.then((a) => {
      places.read(a?.rankings ?? []);
      setNames(new Map(places.names));
      follow();
    });
    return () => { closed = true; client?.close(); };
  }, [session.key, session.tenant, board.key]);
  const who = (userId: string) => names.get(userId) ?? userId;
  return (
    <div>
      <p class="muted" aria-live="polite">
        Connection: <strong data-state={state}>{state}</strong>{following && <span data-following> · following {board.name}</span>}
        {error !== '' && <span class="error"> {error}</span>}
      </p>
      <div class="card">
        <h2>Top 10</h2>
        {top === null ? <p class="muted">Shown at the board's next change of its top 10.</p> : (
          <table aria-label="Top 10">
            <thead><tr><th>Rank</th><th>User</th><th>Value</th></tr></thead>
            <tbody>{top.map((r) => <tr key={r.userId}><td>{r.rank}</td><td>{who(r.userId)}</td><td>{r.value}</td></tr>)}</tbody>
          </table>
        )}
      </div>
      <div class="card">
        <h2>Moves</h2>
        {moves.length === 0 ? <p class="muted">No move since the page opened.</p> : (
          <table aria-label="Moves">
            <thead><tr><th>At</th><th>User</th><th>Rank</th><th>Value</th></tr></thead>
            <tbody>
              {moves.map((m) => (
                <tr key={m.seq}>
                  <td>{m.at}</td>
                  <td>{m.name ?? who(m.userId)}</td>
                  <td>{m.previousRank === null ? 'new' : m.previousRank} → {m.rank}</td>
                  <td>{m.previousValue === null ? '–' : m.previousValue} → {m.value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}

export function LivePage({ session }: { session: Session }) {
  const boards = (useList<Board>(session, '/admin/v1/leaderboards?limit=100').items ?? []).filter((b) => b.status === 'active');
  const [chosen, setChosen] = useState('');
  const board = boards.find((b) => b.key === chosen) ?? null;
  return (
    <section>
      <h1>Live</h1>
      <p class="muted">A leaderboard's movements as they happen, over laurel's live updates (a WebSocket to <code>/v1/live</code>).</p>
      <label>
        Leaderboard{' '}
        <select value={chosen} onChange={(e) => setChosen(e.currentTarget.value)} aria-label="Leaderboard">
          <option value="">Choose one</option>
          {boards.map((b) => <option key={b.id} value={b.key}>{b.name}</option>)}
        </select>
      </label>
      {board !== null && <BoardLive key={board.key} session={session} board={board} />}
    </section>
  );
}
