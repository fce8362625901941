/**
 * The client of the audit log's bench (bench/data-rights.ts), in a process of its own, so that
 * its latencies hold only the server's answer, not the server's work after it:
 * `node dist/bench/admin-write-client.js <url> <admin key> <metric id> <writes> <in flight> <round>`
 * renames the metric `writes` times (`PATCH /admin/v1/metrics`), that many at a time, and prints
 * `{ seconds, ms }`: the round's wall time and each write's latency, in milliseconds.
 */
async function main(): Promise<void> {
  const [url, key, id, writes, inFlight, round] = process.argv.slice(2);
  const total = Number(writes);
  const ms: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: Number(inFlight) }, async () => {
    while (next < total) {
      const i = next++;
      const t = performance.now();
      const res = await fetch(`${url}/admin/v1/metrics`, {
        method: 'PATCH', headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
        body: JSON.stringify([{ id, name: `Audited ${round}-${i}` }]),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`write: ${res.status} ${text}`);
      ms.push(performance.now() - t);
    }
  }));
  console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000, ms }));
}

main().then(() => process.exit(0), (err: unknown) => {
  console.error(err);
  process.exit(1);
});
