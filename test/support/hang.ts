/**
 * How long a test waits for something that should come before it calls it a hang: a bound for a
 * hang, never for a speed. A start, a recovery or a line of output takes seconds on a quiet
 * machine and may take many more beside a CPU hog; only something that never comes takes this.
 */
export const HANG_MS = 120_000;
