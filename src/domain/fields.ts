/** Field names in a user's hashes that more than one module writes or reads. */

/** When the user completed an achievement (user hash). */
export const completionField = (achievementId: string): string => 'c:' + achievementId;

/** Running sum of an event-filtered achievement (user-metric hash). */
export const progressField = (achievementId: string): string => 'p:' + achievementId;
