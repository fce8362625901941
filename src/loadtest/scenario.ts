/**
 * A load test's scenario: the mix of operations it sends and the configuration it sets up for
 * them. Two are built in (`events`, `mixed`); a JSON file describes others:
 *
 *     { "operations": { "event": 60, "user": 10, "streak": 10, "points": 10, "leaderboard": 10 },
 *       "setup": { "achievements": [5, 20, 100], "streak": true, "points": true, "leaderboard": 1000 } }
 *
 * `operations` weighs each operation (any non-negative numbers, one at least above 0); `setup`
 * says what the metric carries: achievements at these thresholds, a daily streak (set only when
 * the installation has none), an XP points system (10 points an event, levels at 50 and 200) and
 * a leaderboard of the top N. A file is checked whole (a field it does not know is refused).
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import { SettingsError } from '../lib/settings.js';
import type { OperationName } from './protocol.js';

/** The operations a scenario may weigh (`batch` replaces `event` under --batch). */
export const SCENARIO_OPERATIONS = ['event', 'user', 'streak', 'points', 'leaderboard'] as const;
export type ScenarioOperation = (typeof SCENARIO_OPERATIONS)[number];

export interface Setup {
  achievements: number[];
  streak: boolean;
  points: boolean;
  /** The leaderboard's maxParticipants; null for none. */
  leaderboard: number | null;
}

export interface Scenario {
  name: string;
  operations: Partial<Record<ScenarioOperation, number>>;
  setup: Setup;
}

/** What a backend's metric carries in the built-in scenarios: every feature on the event path. */
const FULL: Setup = { achievements: [5, 20, 100], streak: true, points: true, leaderboard: 1000 };

export const BUILT_IN: Record<string, Scenario> = {
  /** Metric events only. */
  events: { name: 'events', operations: { event: 1 }, setup: FULL },
  /**
   * Half events; the other half the reads an app makes around them: a user's profile (10%), their
   * streak (15%) and points (15%), and the leaderboard (10%).
   */
  mixed: { name: 'mixed', operations: { event: 50, user: 10, streak: 15, points: 15, leaderboard: 10 }, setup: FULL },
};

const ajv = new Ajv({ allErrors: false, strictNumbers: true });
const weight = { type: 'number', minimum: 0, maximum: 1_000_000 };
const validate = ajv.compile({
  type: 'object',
  required: ['operations'],
  additionalProperties: false,
  properties: {
    operations: {
      type: 'object', additionalProperties: false, minProperties: 1,
      properties: Object.fromEntries(SCENARIO_OPERATIONS.map((o) => [o, weight])),
    },
    setup: {
      type: 'object', additionalProperties: false,
      properties: {
        achievements: { type: 'array', maxItems: 20, items: { type: 'number', exclusiveMinimum: 0 } },
        streak: { type: 'boolean' },
        points: { type: 'boolean' },
        leaderboard: { anyOf: [{ type: 'integer', minimum: 1, maximum: 100_000 }, { type: 'null' }] },
      },
    },
  },
});

function why(e: ErrorObject): string {
  const at = e.instancePath === '' ? 'the scenario' : e.instancePath.slice(1).replace(/\//g, '.');
  if (e.keyword === 'additionalProperties') return `${at}: unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  return `${at} ${e.message ?? 'is not valid'}`;
}

/** The scenario `ref` names: a built-in one, or a JSON file. */
export function loadScenario(ref: string): Scenario {
  const builtIn = BUILT_IN[ref];
  if (builtIn !== undefined) return builtIn;
  let text: string;
  try {
    text = readFileSync(ref, 'utf8');
  } catch (err) {
    throw new SettingsError(`--scenario: "${ref}" is neither events, mixed nor a file that can be read (${(err as Error).message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new SettingsError(`--scenario ${ref}: not JSON (${(err as Error).message})`);
  }
  if (!validate(data)) throw new SettingsError(`--scenario ${ref}: ${why(validate.errors![0]!)}`);
  const d = data as { operations: Scenario['operations']; setup?: Partial<Setup> };
  if (!Object.values(d.operations).some((w) => (w ?? 0) > 0)) throw new SettingsError(`--scenario ${ref}: every operation weighs 0`);
  const setup: Setup = { achievements: d.setup?.achievements ?? [], streak: d.setup?.streak ?? false, points: d.setup?.points ?? false, leaderboard: d.setup?.leaderboard ?? null };
  if ((d.operations.points ?? 0) > 0 && !setup.points) throw new SettingsError(`--scenario ${ref}: reads of points need "setup": { "points": true }`);
  if ((d.operations.leaderboard ?? 0) > 0 && setup.leaderboard === null) throw new SettingsError(`--scenario ${ref}: reads of a leaderboard need "setup": { "leaderboard": <size> }`);
  return { name: ref, operations: d.operations, setup };
}

/** The operations of a scenario with a weight above 0, `event` sent as `batch` when batching. */
export function mixOf(s: Scenario, batch: boolean): { name: OperationName; weight: number }[] {
  return SCENARIO_OPERATIONS.flatMap((o) => {
    const w = s.operations[o] ?? 0;
    if (w <= 0) return [];
    return [{ name: (o === 'event' && batch ? 'batch' : o) as OperationName, weight: w }];
  });
}
