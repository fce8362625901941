/**
 * Admin API for the streak rule: `/admin/v1/streaks/settings` (API.md), read and replaced whole.
 * What the rule does to users' streaks, and the calls that change them:
 * src/routes/admin/streaks.ts.
 */
import type { Deps } from '../../engine/deps.js';
import { fail } from '../../lib/errors.js';
import { ok } from '../../http/reply.js';
import type { Route } from '../../http/server.js';
import { compile, parseJson } from '../../http/validate.js';
import type { StreakSettings } from '../../model/entities.js';

type SettingsInput = Omit<StreakSettings, 'id' | 'created' | 'updated'>;

const validateSettings = compile<SettingsInput>({
  type: 'object',
  required: ['frequency', 'metrics'],
  properties: {
    frequency: { enum: ['daily', 'weekly', 'monthly'] },
    evaluation: { enum: ['all', 'any'] },
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

export function settingsView(s: StreakSettings | null) {
  if (s === null) return { frequency: 'daily', evaluation: 'all', metrics: [], freezes: null };
  return { frequency: s.frequency, evaluation: s.evaluation, metrics: s.metrics, freezes: s.freezes, updated: s.updated };
}

export function adminStreakSettingsRoutes(deps: Deps): Route[] {
  const { store, clock } = deps;
  return [
    {
      method: 'get', path: '/streaks/settings', family: 'admin', reach: 'configuration', handler: () => ok(settingsView(store.current.streak)),
      doc: { summary: 'The streak rule', success: [200] },
    },
    {
      method: 'put', path: '/streaks/settings', family: 'admin', reach: 'configuration',
      doc: { summary: 'Replace the streak rule', body: { check: validateSettings }, success: [200], refusals: [422] },
      handler: async (req) => {
        const input = validateSettings(parseJson(req.body));
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
          created: previous?.created ?? now, updated: now,
        };
        await store.put('settings', previous ? 'update' : 'create', settings);
        return ok(settingsView(settings));
      },
    },
  ];
}
