/**
 * A leaderboard's lifecycle actions, as the spec's state table allows them from its status
 * (PATCH /admin/v1/leaderboards `[{ id, status }]`): inactive → active or scheduled (a future
 * start); active or scheduled → inactive (paused: hidden, taking no one) or finished; finished is
 * final. The Admin API judges each move; its refusal is handed to `onDone`.
 */
import { updateOne, type Session } from '../../api.js';
import type { Board } from './rankings.js';

const ACTIONS: Record<string, [string, string][]> = {
  inactive: [['active', 'Activate'], ['scheduled', 'Schedule']],
  scheduled: [['inactive', 'Pause'], ['finished', 'Finish']],
  active: [['inactive', 'Pause'], ['finished', 'Finish']],
  finished: [],
};

export function Lifecycle(props: { session: Session; board: Board; onDone: (error: string) => void }) {
  const { session, board } = props;
  const move = async (status: string) => {
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
