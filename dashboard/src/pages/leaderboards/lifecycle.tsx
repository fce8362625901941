/**
 * A leaderboard's lifecycle actions, as the spec's state table allows them from its status
 * (PATCH /admin/v1/leaderboards `[{ id, status }]`): inactive → active or scheduled (a future
 * start); active or scheduled → inactive (paused: hidden, taking no one) or finished; finished is
 * final. The Admin API judges each move; its refusal is handed to `onDone`. Finish and Pause are
 * asked first (`confirm`), saying what they end.
 */
import { updateOne, type Session } from '../../api.js';
import type { Ask } from '../../confirm.js';
import { runsOf } from '../../words.js';
import type { Board } from './rankings.js';

const ACTIONS: Record<string, [string, string][]> = {
  inactive: [['active', 'Activate'], ['scheduled', 'Schedule']],
  scheduled: [['inactive', 'Pause'], ['finished', 'Finish']],
  active: [['inactive', 'Pause'], ['finished', 'Finish']],
  finished: [],
};

/** What a move ends, asked before it is made; null: nothing is lost (made at once). */
function question(board: Board, status: string): Ask | null {
  if (status === 'finished') {
    return {
      title: `Finish the leaderboard ${board.name}?`, action: 'Finish',
      body: (
        <p>{board.status === 'active' ? <>Its current run ends today and becomes final, with its winners; </> : <>It never starts; </>}
          it takes no one again{board.runUnit === undefined ? '' : ` and starts no new run (it runs ${runsOf(board)})`}. A finished
          leaderboard cannot be made active again: its rankings stay to read.</p>
      ),
    };
  }
  if (status === 'inactive' && board.status === 'active') {
    return {
      title: `Pause the leaderboard ${board.name}?`, action: 'Pause',
      body: <p>Users no longer see it, and events rank no one on it while it is paused. Activate takes it back.</p>,
    };
  }
  return null;
}

export function Lifecycle(props: { session: Session; board: Board; onDone: (error: string) => void; confirm: (ask: Ask) => Promise<boolean> }) {
  const { session, board } = props;
  const move = async (status: string) => {
    const ask = question(board, status);
    if (ask !== null && !await props.confirm(ask)) return;
    try {
      const { error } = await updateOne(session, '/admin/v1/leaderboards', { id: board.id, status });
      props.onDone(error === '' ? '' : `${board.name}: ${error}`);
    } catch (err) {
      props.onDone(`${board.name}: ${(err as Error).message}`);
    }
  };
  return (
    <span class="actions">
      {(ACTIONS[board.status] ?? []).map(([status, label]) => (
        <button key={status} type="button" class={`small${status === 'finished' ? ' danger' : ''}`} aria-label={`${label} ${board.name}`} onClick={() => move(status)}>{label}</button>
      ))}
    </span>
  );
}
