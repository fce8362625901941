/**
 * Prometheus metrics of one process, served at `GET /metrics` (text exposition format 0.0.4).
 * Counters are plain numbers bumped on the request path (a few nanoseconds); the text is built
 * only when scraped.
 */

export class Metrics {
  private readonly started = Date.now();
  /** HTTP responses by status code. */
  readonly responses = new Map<number, number>();
  /** Metric events by outcome; refusals show as 4xx responses. */
  readonly events = { processed: 0, replayed: 0 };
  /** Leaderboard placements the event path skipped: the entry gate showed they could change nothing. */
  readonly leaderboards = { skipped: 0 };
  /** Notification deliveries this process settled (the workers), by outcome. */
  readonly notifications = { sent: 0, suppressed: 0, retried: 0, failed: 0 };
  /** Gauges read when scraped. */
  private readonly gauges: (() => [name: string, help: string, value: number])[] = [];

  response(status: number): void {
    this.responses.set(status, (this.responses.get(status) ?? 0) + 1);
  }

  gauge(read: () => [name: string, help: string, value: number]): void {
    this.gauges.push(read);
  }

  render(): string {
    const lines: string[] = [
      '# HELP laurel_http_responses_total HTTP responses sent, by status code.',
      '# TYPE laurel_http_responses_total counter',
    ];
    for (const [code, n] of [...this.responses].sort((a, b) => a[0] - b[0])) {
      lines.push(`laurel_http_responses_total{code="${code}"} ${n}`);
    }
    lines.push(
      '# HELP laurel_events_total Metric events, by outcome: processed (201) or replayed (202).',
      '# TYPE laurel_events_total counter',
    );
    for (const [outcome, n] of Object.entries(this.events)) lines.push(`laurel_events_total{outcome="${outcome}"} ${n}`);
    lines.push(
      '# HELP laurel_notifications_total Notification deliveries this process settled, by outcome (retried: a transport error, tried again later).',
      '# TYPE laurel_notifications_total counter',
    );
    for (const [outcome, n] of Object.entries(this.notifications)) lines.push(`laurel_notifications_total{outcome="${outcome}"} ${n}`);
    lines.push(
      '# HELP laurel_leaderboard_placements_skipped_total Leaderboard placements the event path skipped (the entry gate).',
      '# TYPE laurel_leaderboard_placements_skipped_total counter',
      `laurel_leaderboard_placements_skipped_total ${this.leaderboards.skipped}`,
      '# HELP laurel_uptime_seconds Seconds since the process started.',
      '# TYPE laurel_uptime_seconds gauge',
      `laurel_uptime_seconds ${Math.round((Date.now() - this.started) / 1000)}`,
    );
    for (const read of this.gauges) {
      const [name, help, value] = read();
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`);
    }
    return lines.join('\n') + '\n';
  }
}
