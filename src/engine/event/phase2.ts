/**
 * Phase 2 of a metric event (docs/architecture.md, "The event hot path"): what the event script
 * must do for the leaderboards, the entry gates read with phase 1, and the user's standing on
 * every board the event concerns, placed after phase 1 answered.
 */
import { attributeField, runSumField } from '../../model/fields.js';
import type { MetricPlan } from '../../config/plans/achievements.js';
import { breakdownKeys, finalThrough, hasWindow, leftAsItWas, inWindow, metricBoards, pointsBoards, runOf, streakBoards } from '../../domain/leaderboards/runs.js';
import { localMinute } from '../../domain/time.js';
import type { Leaderboard } from '../../model/entities.js';
import { leagueField } from '../../redis/leagues.js';
import type { EventAward } from '../../model/log.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { WriteCoalescer } from '../../redis/coalesce.js';
import type { Processed } from '../../redis/scripts/recordEventPlan.js';
import type { Context } from '../context.js';
import { certificateOf, gateable, gateFor, gatePasses, gatePassesNow, type Gate } from '../leaderboards/skip-below-threshold.js';
import { groupResolver, lateEntry, place, pointsPlacements, streakPlacements, type Placement } from '../leaderboards/rank-user.js';

interface EventBoard {
  lb: Leaderboard;
  run: { start: string; end: string | null };
  /** Position of the run sum in the script's answer; -1: the board ranks the metric's total. */
  sum: number;
  /**
   * The entry gate (src/engine/leaderboards/skip-below-threshold.ts), for an event that raises the
   * value on a board without breakdown whose ranking this process knows full: the threshold learnt,
   * and the ranking's falls counter as read with phase 1.
   */
  gate: Gate | null;
}

export interface EventBoards {
  /** The metric's boards running on the event's date. */
  metric: EventBoard[];
  /** recordEventPlan's <boards>. */
  arg: string;
  runCount: number;
  /** The breakdown attributes read, in the order of their values after the run sums. */
  attributeKeys: string[];
  /** The league boards whose user's place is read, in the order of their values after the attributes. */
  leagueIds: string[];
  /** The entry gates of perpetual points boards without breakdown, by board id. */
  pointsGates: Map<string, Gate>;
  /**
   * For an event sent with `occurredAt`, the last day a run may end on and be final when it arrived
   * (src/domain/leaderboards/runs.ts finalThrough): such a run is left as it is; '' for another.
   */
  final: string;
  /** An imported event: it fills the runs final when it arrived but a league's (leftAsItWas). */
  imported: boolean;
  /** The metric's boards whose run of the event's date was final (`late: true` in the answer). */
  late: { lb: Leaderboard; run: { start: string; end: string | null } }[];
}

/** No board late: an event sent without `occurredAt` (shared, never written). */
const NO_LATE: EventBoards['late'] = [];

/** An event no board ranks. */
export const NO_BOARDS: EventBoards = { metric: [], arg: '', runCount: 0, attributeKeys: [], leagueIds: [], pointsGates: new Map(), final: '', imported: false, late: NO_LATE };

/** A streak extension as the streak boards rank it. */
export interface Extension {
  length: number;
  /** When the streak is lost if nothing happens (ms). */
  expiry: number;
}

export class EventPhase2 {
  private readonly deps: Pick<Context, 'redis' | 'keys' | 'store' | 'metrics'>;
  private readonly coalescer: WriteCoalescer;
  private readonly hold: () => void;
  /**
   * The falls counters wanted by the events of the batch of writes being gathered: each is read
   * once for all of them, last in that batch, behind the phase 1 of each of those events (on one
   * connection Redis runs them in order; on a Cluster their phase 1 has answered before they ask).
   */
  private fallsWanted = new Map<string, ((falls: string | null | undefined) => void)[]>();
  private readonly readWantedFalls = (): void => {
    const wanted = this.fallsWanted;
    this.fallsWanted = new Map();
    for (const [key, waiters] of wanted) {
      this.deps.redis.get(key).then(
        (falls) => { for (const w of waiters) w(falls); },
        () => { for (const w of waiters) w(undefined); },
      );
    }
  };
  private readonly readFalls = (gate: Gate): Promise<string | null | undefined> => new Promise((resolve) => {
    let waiters = this.fallsWanted.get(gate.key);
    if (waiters === undefined) {
      if (this.fallsWanted.size === 0) this.coalescer.beforeBatchLeaves(this.readWantedFalls);
      waiters = [];
      this.fallsWanted.set(gate.key, waiters);
    }
    waiters.push((falls) => {
      gate.read = true;
      gate.value = falls;
      resolve(falls);
    });
  });

  constructor(deps: Pick<Context, 'redis' | 'keys' | 'store' | 'metrics'>, coalescer: WriteCoalescer) {
    this.deps = deps;
    this.coalescer = coalescer;
    this.hold = () => coalescer.hold();
  }

  /**
   * What the event script must do for the leaderboards (recordEventPlan <boards>): add the value to
   * the run sums of the metric's repeating boards, and read the breakdown attributes of every board
   * the event may rank on (the metric's, and the points and streak boards). A perpetual metric board
   * ranks the metric's total. And the user's place on each league's board (the user hash's field,
   * src/redis/leagues.ts), read there rather than by the placement: one round trip less. An event
   * sent with `occurredAt` (`arrivedAt`: when it arrived) leaves the runs final by then as they are,
   * unless it is `imported` (leftAsItWas).
   */
  plan(tenant: string, metricId: string, date: string, plan: MetricPlan, tz: string, now: number, raises: boolean, arrivedAt?: number, imported = false): EventBoards {
    const snapshot = this.deps.store.current;
    const mine = metricBoards(snapshot, metricId);
    // Points and streak boards concern the event only when it may award points or extend the streak.
    const points = plan.awardsPoints ? pointsBoards(snapshot) : [];
    const streaks = plan.extendsStreak ? streakBoards(snapshot) : [];
    if (mine.length === 0 && points.length === 0 && streaks.length === 0) return NO_BOARDS;
    const metric: EventBoard[] = [];
    const final = arrivedAt === undefined ? '' : finalThrough(arrivedAt);
    const late: EventBoards['late'] = final === '' ? NO_LATE : [];
    const runFields: string[] = [];
    const attributeKeys = new Set<string>();
    const leagueIds = new Set<string>();
    for (const lb of [...mine, ...points, ...streaks]) if (lb.league) leagueIds.add(lb.id);
    for (const lb of mine) {
      const run = runOf(lb, date);
      if (run === null) continue;
      if (leftAsItWas(lb, run, final, imported)) {
        late.push({ lb, run });
        continue;
      }
      // A board with a daily window counts only the events inside it, in a sum of its own.
      const windowed = hasWindow(lb);
      if (windowed && !inWindow(lb, localMinute(tz, now))) continue;
      const board: EventBoard = { lb, run, sum: -1, gate: null };
      if (lb.runUnit !== null || windowed) {
        board.sum = runFields.length;
        runFields.push(runSumField(lb.id, run.start));
      }
      const breakdown = breakdownKeys(lb, snapshot);
      for (const key of breakdown) attributeKeys.add(key);
      if (raises && breakdown.length === 0) board.gate = this.gateOf(snapshot, tenant, lb, run.start);
      metric.push(board);
    }
    const pointsGates = new Map<string, Gate>();
    for (const lb of points) {
      const breakdown = breakdownKeys(lb, snapshot);
      for (const key of breakdown) attributeKeys.add(key);
      // Whether the event raises the total is known only once phase 1 answered its awards.
      const run = breakdown.length === 0 ? runOf(lb, date) : null;
      const gate = run === null ? null : this.gateOf(snapshot, tenant, lb, run.start);
      if (gate !== null) pointsGates.set(lb.id, gate);
    }
    for (const lb of streaks) {
      for (const key of breakdownKeys(lb, snapshot)) attributeKeys.add(key);
    }
    const keysList = [...attributeKeys];
    const leagueList = [...leagueIds];
    const fields = [...keysList.map(attributeField), ...leagueList.map(leagueField)];
    const arg = runFields.length === 0 && fields.length === 0 ? '' : `${runFields.join(',')}#${fields.join(',')}`;
    return { metric, arg, runCount: runFields.length, attributeKeys: keysList, leagueIds: leagueList, pointsGates, final, imported, late };
  }

  /** The entry gate of a board run without breakdown, when this process knows its ranking full. */
  private gateOf(snapshot: Snapshot, tenant: string, lb: Leaderboard, run: string): Gate | null {
    if (!gateable(lb, [])) return null;
    const k = this.deps.keys.leaderboard(tenant, lb.id, run, '');
    const certificate = certificateOf(snapshot, k.ranking);
    return certificate === undefined ? null : gateFor(certificate, k.falls);
  }

  /** Sends the falls counters' reads of an event's gates (joining the turn's coalesced writes). */
  readGates(boards: EventBoards): void {
    for (const b of boards.metric) if (b.gate !== null) b.gate.falls = this.readFalls(b.gate);
    for (const gate of boards.pointsGates.values()) gate.falls = this.readFalls(gate);
  }

  /**
   * Whether the event concerns any board: the metric's, the points boards when it awarded points,
   * the streak boards when it extended the streak.
   */
  ranks(boards: EventBoards, awarded: boolean, extended: boolean): boolean {
    const snapshot = this.deps.store.current;
    return boards.metric.length > 0 || boards.late.length > 0 || (awarded && pointsBoards(snapshot).length > 0)
      || (extended && streakBoards(snapshot).length > 0);
  }

  /**
   * '{}' when every board the event concerns skips its placement, known without waiting (the
   * usual event on a full board: its counter's read answered with phase 1); else null.
   */
  skippedNow(boards: EventBoards, processed: Processed, awardsPoints: boolean, extended: boolean): string | null {
    const snapshot = this.deps.store.current;
    if ((awardsPoints && pointsBoards(snapshot).length > 0) || (extended && streakBoards(snapshot).length > 0) || boards.late.length > 0) return null;
    for (const { sum, gate } of boards.metric) {
      if (gate === null || sum >= 0 || gatePassesNow(gate, Number(processed.total)) !== true) return null;
    }
    this.deps.metrics.leaderboards.skipped += boards.metric.length;
    return '{}';
  }

  /**
   * The user's standing on the metric's boards (total or run sum), on the points boards of the
   * systems the event awarded, and on the streak boards when the streak extended. Answers the
   * response's `leaderboards` JSON: the boards the event changed (`still`: nothing of its value
   * counted, so a metric board is listed only when the user entered it), and `late: true` on each
   * whose run of the event's date was final when it arrived.
   */
  async rank(
    boards: EventBoards, processed: Processed, awards: readonly EventAward[], tenant: string, userId: string, date: string, tz: string,
    now: number, extended: Extension | null, still: boolean,
  ): Promise<string> {
    const { deps, readFalls } = this;
    const snapshot = deps.store.current;
    const values = processed.boards === '' ? [] : JSON.parse(processed.boards) as string[];
    const groupOf = groupResolver(snapshot, new Map(boards.attributeKeys.map((k, i) => [k, values[boards.runCount + i] ?? ''])));
    const placements: Placement[] = [];
    // The boards late for an event sent with `occurredAt` (none else: nothing made for the others).
    const late = boards.final === '' ? null : [...boards.late];
    for (const { lb, run, sum, gate } of boards.metric) {
      const group = groupOf(lb);
      if (group === null) continue;
      const value = sum >= 0 ? values[sum] : processed.total;
      if (gate !== null && await gatePasses(gate, Number(value), readFalls)) {
        deps.metrics.leaderboards.skipped++;
        continue;
      }
      placements.push({ lb, run, group, value, still });
    }
    if (awards.length > 0) {
      const placed = awards.map(([system, , awarded, total, n]) => ({ system, awarded, total, n, day: date, ms: now }));
      for (const p of pointsPlacements(deps, placed, groupOf, tz)) {
        if (late !== null && leftAsItWas(p.lb, p.run, boards.final, boards.imported)) {
          late.push(p);
          continue;
        }
        // A perpetual board ranks the system's total after the event's last award: skipped when
        // every award of the system raised it.
        const gate = boards.pointsGates.get(p.lb.id);
        if (gate !== undefined && placed.every((a) => a.system !== p.lb.pointsSystemId || a.awarded > 0)
            && await gatePasses(gate, Number(p.value), readFalls)) {
          deps.metrics.leaderboards.skipped++;
          continue;
        }
        placements.push(p);
      }
    }
    if (extended !== null) {
      for (const p of streakPlacements(deps, extended.length, extended.expiry, date, groupOf)) {
        if (late !== null && leftAsItWas(p.lb, p.run, boards.final, boards.imported)) late.push(p);
        else placements.push(p);
      }
    }
    const lateEntries = late === null ? [] : late.map(({ lb, run }) => lateEntry(snapshot, lb, run, now));
    if (placements.length === 0) return `{${lateEntries.join(',')}}`;
    if (boards.leagueIds.length > 0) {
      const at = boards.runCount + boards.attributeKeys.length;
      const read = new Map(boards.leagueIds.map((id, i) => [id, values[at + i] || null]));
      for (const p of placements) if (read.has(p.lb.id)) p.leaguePlace = read.get(p.lb.id);
    }
    const placed = await place(deps, tenant, userId, placements, now, this.hold, processed.seq, boards.final !== '');
    return `{${(lateEntries.length === 0 ? placed : [...placed, ...lateEntries]).join(',')}}`;
  }
}
