/** Field names in a user's hashes that more than one module writes or reads. */

/** When the user completed an achievement (user hash). */
export const completionField = (achievementId: string): string => 'c:' + achievementId;

/** Running sum of an event-filtered achievement (user-metric hash). */
export const progressField = (achievementId: string): string => 'p:' + achievementId;

/** The user hash field of a metric total. */
export function totalField(metricId: string): string {
  return 'm:' + metricId;
}

/** A user's total of a points system (user hash). */
export const pointsTotalField = (systemId: string): string => 'pt:' + systemId;

/** How many awards a user ever had in a system (user hash). */
export const pointsCountField = (systemId: string): string => 'pn:' + systemId;

/** The n-th award of a user in a system (the user's points hash of the system). */
export const awardField = (n: number): string => 'a:' + n;

/** A user attribute's value (user hash). */
export const attributeField = (key: string): string => 'a:' + key;
