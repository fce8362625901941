/**
 * The service's clock. `system` reads the wall clock. `manual` (LAUREL_CLOCK=manual) reads the
 * wall clock until `PUT /admin/v1/clock` sets an instant; from then on time stands still at the
 * instant last set, in the api and the workers alike (the instant travels through Redis).
 */
export class Clock {
  readonly mode: 'system' | 'manual';
  private fixed: number | null = null;

  constructor(mode: 'system' | 'manual') {
    this.mode = mode;
  }

  now(): number {
    return this.fixed ?? Date.now();
  }

  /** Sets the manual instant (ms since the epoch); null returns to the wall clock. */
  set(ms: number | null): void {
    if (this.mode !== 'manual') throw new Error('the clock can be set only with LAUREL_CLOCK=manual');
    this.fixed = ms;
  }
}
