/**
 * Admin API for the streak rule: `/admin/v1/streaks/settings` (docs/api.md). `PATCH` takes Admin API
 * 1.26.0's shape (metrics by key, `evaluationMode`, `customizationEnabled`, `daysOff`, freezes as
 * `startCount`/`maxCount`), a field left out kept; laurel's earlier `PUT` replaces the rule whole
 * (but the days off, kept when it leaves them out);
 * `GET` answers 1.26.0's fields with the earlier ones beside them. What the rule does to users'
 * streaks, and the calls that change them: src/routes/admin/streaks.ts.
 */
import type { Deps } from '../../engine/deps.js';
import { fail } from '../../lib/errors.js';
import { ok } from '../../http/reply.js';
import type { Route } from '../../http/server.js';
import { compile, parseJson } from '../../http/validate.js';
import type { StreakSettings } from '../../model/entities.js';
import type { StreakSettingsView } from '../../model/views.js';
import { daysOffOf } from '../../domain/streaks/state.js';

type SettingsInput = Omit<StreakSettings, 'id' | 'created' | 'updated'>;

const validateSettings = compile<SettingsInput>({
  type: 'object',
  required: ['frequency', 'metrics'],
  properties: {
    frequency: { enum: ['daily', 'weekly', 'monthly'] },
    evaluation: { enum: ['all', 'any'] },
    daysOff: {
      type: 'array', maxItems: 6, uniqueItems: true, items: { type: 'integer', minimum: 0, maximum: 6 },
      description: 'Weekdays off of a daily rule (0 Sunday to 6 Saturday); left out: the days off kept',
    },
    metrics: {
      type: 'array',
      maxItems: 20,
      items: {
        type: 'object',
        required: ['metricId', 'threshold'],
        properties: { metricId: { type: 'string' }, threshold: { type: 'number', exclusiveMinimum: 0 } },
      },
    },
    freezes: {
      type: ['object', 'null'],
      properties: {
        initial: { type: 'integer', minimum: 0, maximum: 100 },
        max: { type: 'integer', minimum: 0, maximum: 100 },
        autoEarnInterval: { type: 'integer', minimum: 0, maximum: 3660 },
        autoEarnAmount: { type: 'integer', minimum: 0, maximum: 100 },
      },
    },
  },
});

/** What `PATCH` takes (Admin API 1.26.0's UpdateStreakSettingsRequest). */
interface PatchInput {
  frequency?: StreakSettings['frequency'];
  evaluationMode?: 'OR' | 'AND';
  customizationEnabled?: boolean;
  daysOff?: number[];
  metrics?: { key: string; threshold: number }[];
  freezes?: { startCount: number; maxCount: number; autoEarnInterval?: number | null; autoEarnAmount?: number | null } | null;
}

const validatePatch = compile<PatchInput>({
  type: 'object',
  properties: {
    frequency: { enum: ['daily', 'weekly', 'monthly'] },
    evaluationMode: { enum: ['OR', 'AND'] },
    customizationEnabled: { type: 'boolean' },
    daysOff: { type: 'array', maxItems: 6, uniqueItems: true, items: { type: 'integer', minimum: 0, maximum: 6 } },
    metrics: {
      type: 'array', minItems: 1, maxItems: 20,
      items: {
        type: 'object', required: ['key', 'threshold'],
        properties: { key: { type: 'string', minLength: 1, maxLength: 255 }, threshold: { type: 'integer', minimum: 1, maximum: 10000 } },
      },
    },
    freezes: {
      type: ['object', 'null'], required: ['startCount', 'maxCount'],
      properties: {
        startCount: { type: 'integer', minimum: 0, maximum: 100 },
        maxCount: { type: 'integer', minimum: 1, maximum: 100 },
        autoEarnInterval: { type: ['integer', 'null'], minimum: 1, maximum: 365 },
        autoEarnAmount: { type: ['integer', 'null'], minimum: 1, maximum: 10 },
      },
    },
  },
});

/**
 * The rule as `GET` answers it: Admin API 1.26.0's StreakSettings (`evaluationMode`, metrics by
 * `key`, freezes as `startCount`/`maxCount`, auto-earning `null` when off, `null` freezes when
 * none can be held), with laurel's earlier fields beside them (`evaluation`, each metric's
 * `metricId`, the freezes' `initial`/`max`).
 */
export function settingsView(s: StreakSettings | null, keyOf: (metricId: string) => string | undefined): StreakSettingsView {
  if (s === null) {
    return { frequency: 'daily', evaluationMode: 'AND', customizationEnabled: true, daysOff: [], evaluation: 'all', metrics: [], freezes: null };
  }
  const f = s.freezes;
  const earns = f !== null && f.autoEarnInterval > 0 && f.autoEarnAmount > 0;
  return {
    frequency: s.frequency,
    evaluationMode: s.evaluation === 'any' ? 'OR' : 'AND',
    customizationEnabled: s.customizationEnabled ?? true,
    daysOff: daysOffOf(s),
    evaluation: s.evaluation,
    metrics: s.metrics.map((m) => ({ key: keyOf(m.metricId) ?? '', threshold: m.threshold, metricId: m.metricId })),
    freezes: f === null || f.max === 0 ? null : {
      startCount: f.initial, maxCount: f.max,
      autoEarnInterval: earns ? f.autoEarnInterval : null, autoEarnAmount: earns ? f.autoEarnAmount : null,
      initial: f.initial, max: f.max,
    },
    updated: s.updated,
  };
}

/** The rule with a 1.26.0 patch applied (refusals: 422). */
function patched(previous: StreakSettings | null, input: PatchInput, metricIdOf: (key: string) => string | undefined, now: string): StreakSettings {
  const frequency = input.frequency ?? previous?.frequency ?? 'daily';
  if (input.daysOff !== undefined && input.daysOff.length > 0 && frequency !== 'daily') {
    throw fail('unprocessable', 'daysOff: days off apply to daily streaks only');
  }
  // A rule that stops being daily loses its days off.
  const daysOff = frequency === 'daily' ? [...(input.daysOff ?? previous?.daysOff ?? [])].sort((a, b) => a - b) : [];
  let metrics = previous?.metrics ?? [];
  if (input.metrics !== undefined) {
    const seen = new Set<string>();
    metrics = input.metrics.map(({ key, threshold }) => {
      const metricId = metricIdOf(key);
      if (metricId === undefined) throw fail('unprocessable', `metrics: no metric has the key "${key}"`);
      if (seen.has(key)) throw fail('unprocessable', `metrics: "${key}" is listed twice`);
      seen.add(key);
      return { metricId, threshold };
    });
  }
  let freezes = previous?.freezes ?? null;
  if (input.freezes !== undefined) {
    const f = input.freezes;
    if (f === null) freezes = null;
    else {
      if (f.maxCount < f.startCount) throw fail('unprocessable', 'freezes: maxCount must be at least startCount');
      const interval = f.autoEarnInterval ?? null;
      const amount = f.autoEarnAmount ?? null;
      if ((interval === null) !== (amount === null)) {
        throw fail('unprocessable', 'freezes: autoEarnInterval and autoEarnAmount are set together, or both left out to turn auto-earning off');
      }
      freezes = { initial: f.startCount, max: f.maxCount, autoEarnInterval: interval ?? 0, autoEarnAmount: amount ?? 0 };
    }
  }
  const evaluation = input.evaluationMode === undefined ? previous?.evaluation ?? 'all' : input.evaluationMode === 'OR' ? 'any' : 'all';
  const customizationEnabled = input.customizationEnabled ?? previous?.customizationEnabled;
  return {
    id: 'streaks', frequency, evaluation, metrics, freezes,
    ...(customizationEnabled === undefined ? {} : { customizationEnabled }),
    ...(daysOff.length === 0 ? {} : { daysOff }),
    created: previous?.created ?? now, updated: now,
  };
}

const METRIC_VIEW = {
  type: 'object', required: ['key', 'threshold', 'metricId'],
  properties: { key: { type: 'string' }, threshold: { type: 'number' }, metricId: { type: 'string' } },
};

const SETTINGS_SCHEMA = {
  type: 'object', required: ['frequency', 'evaluationMode', 'customizationEnabled', 'daysOff', 'metrics', 'freezes', 'evaluation'],
  properties: {
    frequency: { enum: ['daily', 'weekly', 'monthly'] },
    evaluationMode: { enum: ['OR', 'AND'] },
    customizationEnabled: { type: 'boolean' },
    daysOff: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 6 } },
    evaluation: { enum: ['all', 'any'] },
    metrics: { type: 'array', items: METRIC_VIEW },
    freezes: {
      type: ['object', 'null'],
      properties: {
        startCount: { type: 'integer' }, maxCount: { type: 'integer' }, autoEarnInterval: { type: ['integer', 'null'] },
        autoEarnAmount: { type: ['integer', 'null'] }, initial: { type: 'integer' }, max: { type: 'integer' },
      },
    },
    updated: { type: 'string' },
  },
};

export function adminStreakSettingsRoutes(deps: Deps): Route[] {
  const { store, clock } = deps;
  const view = (s: StreakSettings | null) => settingsView(s, (id) => store.current.metrics.get(id)?.key);
  return [
    {
      method: 'get', path: '/streaks/settings', family: 'admin', reach: 'configuration', handler: () => ok(view(store.current.streak)),
      doc: { summary: 'The streak rule', success: [200], response: SETTINGS_SCHEMA },
    },
    {
      method: 'patch', path: '/streaks/settings', family: 'admin', reach: 'configuration',
      doc: {
        summary: 'Change the streak rule (Admin API 1.26.0; fields left out stay)', body: { check: validatePatch },
        success: [200], refusals: [422], response: SETTINGS_SCHEMA,
      },
      handler: async (req) => {
        const input = validatePatch(parseJson(req.body));
        const snapshot = store.current;
        const previous = snapshot.streak;
        const settings = patched(previous, input, (key) => snapshot.metricsByKey.get(key)?.id, new Date(clock.now()).toISOString());
        await store.put('settings', previous ? 'update' : 'create', settings);
        return ok(view(settings));
      },
    },
    {
      method: 'put', path: '/streaks/settings', family: 'admin', reach: 'configuration',
      doc: { summary: 'Replace the streak rule (laurel\'s earlier form)', body: { check: validateSettings }, success: [200], refusals: [422], response: SETTINGS_SCHEMA },
      handler: async (req) => {
        const input = validateSettings(parseJson(req.body));
        if (input.daysOff !== undefined && input.daysOff.length > 0 && input.frequency !== 'daily') {
          throw fail('unprocessable', 'daysOff: days off apply to daily streaks only');
        }
        const snapshot = store.current;
        const seen = new Set<string>();
        for (const m of input.metrics) {
          if (!snapshot.metrics.has(m.metricId)) throw fail('unprocessable', `metrics: "${m.metricId}" is not the id of a metric`);
          if (seen.has(m.metricId)) throw fail('unprocessable', `metrics: "${m.metricId}" is listed twice`);
          seen.add(m.metricId);
        }
        let freezes: StreakSettings['freezes'] = null;
        if (input.freezes) {
          const max = input.freezes.max ?? 0;
          freezes = {
            initial: Math.min(input.freezes.initial ?? 0, max),
            max,
            autoEarnInterval: input.freezes.autoEarnInterval ?? 0,
            autoEarnAmount: input.freezes.autoEarnAmount ?? 0,
          };
        }
        const now = new Date(clock.now()).toISOString();
        const previous = snapshot.streak;
        const settings: StreakSettings = {
          id: 'streaks', frequency: input.frequency, evaluation: input.evaluation ?? 'all', metrics: input.metrics, freezes,
          // Not a field of this form: kept.
          ...(previous?.customizationEnabled === undefined ? {} : { customizationEnabled: previous.customizationEnabled }),
          // Days off as sent, else kept while the rule stays daily.
          ...(input.frequency === 'daily' && (input.daysOff ?? previous?.daysOff ?? []).length > 0
            ? { daysOff: [...(input.daysOff ?? previous!.daysOff!)].sort((a, b) => a - b) } : {}),
          created: previous?.created ?? now, updated: now,
        };
        await store.put('settings', previous ? 'update' : 'create', settings);
        return ok(view(settings));
      },
    },
  ];
}
