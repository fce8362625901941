/**
 * The field names of the stored hashes that more than one module writes or reads (the scripts
 * write the same names: lua/ names them in each script's header).
 */

/** Where an achievement completion's field name starts. */
export const COMPLETION_PREFIX = 'c:';

/** When the user completed an achievement (user hash). */
export const completionField = (achievementId: string): string => COMPLETION_PREFIX + achievementId;

/** Running sum of an event-filtered achievement (user-metric hash). */
export const progressField = (achievementId: string): string => 'p:' + achievementId;

/** The user hash field of a metric total. */
export function totalField(metricId: string): string {
  return 'm:' + metricId;
}

/** A user's total of a points system (user hash). */
export const POINTS_TOTAL_PREFIX = 'pt:';
export const pointsTotalField = (systemId: string): string => POINTS_TOTAL_PREFIX + systemId;

/** How many awards a user ever had in a system (user hash). */
export const pointsCountField = (systemId: string): string => 'pn:' + systemId;

/** The n-th award of a user in a system (the user's points hash of the system). */
export const awardField = (n: number): string => 'a:' + n;

/** A user attribute's value (user hash). */
export const attributeField = (key: string): string => 'a:' + key;

/** Where a user attribute's field name starts. */
export const ATTRIBUTE_PREFIX = 'a:';

/** The attribute key of a user hash field, or null when the field holds no attribute. */
export function attributeOfField(field: string): string | null {
  return field.startsWith(ATTRIBUTE_PREFIX) ? field.slice(ATTRIBUTE_PREFIX.length) : null;
}

/** A local day's bucket (user-metric hash: the day's change; points hash: the day's closing total). */
export const dayField = (date: string): string => 'd:' + date;

/** Where a day bucket's field name starts. */
export const DAY_PREFIX = 'd:';

/** A leaderboard run's sum of a metric (user-metric hash). */
export const runSumField = (boardId: string, run: string): string => `r:${boardId}:${run}`;

/** Where a time trigger's due field name starts. */
export const TIME_DUE_PREFIX = 'tt:';

/** When a time trigger's next award is due, ms (user hash). */
export const timeDueField = (triggerId: string): string => TIME_DUE_PREFIX + triggerId;

/** The streak's packed state (user hash; lua/includes/streak.lua has the format). */
export const STREAK_FIELD = 's';

/** The user's streak pauses, JSON (user hash). */
export const PAUSES_FIELD = 's:pz';


/**
 * The user's streak preferences, JSON (user hash; src/domain/streaks/preferences.ts has the form).
 * Beside it, 's:ov', a token of them (16 hex digits), is the scripts' alone: lua/updatePreferences-3.lua
 * writes it and every event script reads it, so no TypeScript names it.
 */
export const STREAK_PREFERENCES_FIELD = 's:o';

/**
 * The user's next anniversary date on their calendar (YYYY-MM-DD), or `~` when no anniversary
 * achievement is left to complete (user hash; every event script reads it while anniversary
 * achievements are active: src/engine/achievements/anniversaries.ts).
 */
export const ANNIVERSARY_FIELD = 'an';
/** The date the user's anniversaries are counted from: the local day of their creation (user hash). */
export const ANNIVERSARY_ANCHOR_FIELD = 'an:d';
/** `an` of a user with no anniversary left: after every date in string order. */
export const NO_ANNIVERSARY = '~';

/**
 * The user's exclusion from the rankings, '<the excluded entry's id>|<ms>|<reason>' (user hash;
 * lua/setExclusion-2.lua writes it, every event script reads it: src/engine/fairplay/exclude.ts).
 */
export const EXCLUSION_FIELD = 'x';
