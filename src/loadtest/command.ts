/**
 * `laurel loadtest` as src/cli.ts runs it: the options, the run, the exit code (0 when the verdict
 * passes, 1 otherwise: over 1% failed, or under 95% of the rate sent; 1 too when the run could
 * not start). The first Ctrl-C ends the load early and still reports and cleans up.
 * `--cleanup <run id>` removes what an earlier run left instead (src/loadtest/cleanup.ts).
 */
import { AdminError } from './admin.js';
import { cleanupCommand, parseCleanupOptions, CLEANUP_USAGE } from './cleanup.js';
import { parseLoadtestOptions, LOADTEST_USAGE } from './options.js';
import { LoadtestError, runLoadtest } from './run.js';

export { LoadtestError };

async function cleanup(args: string[]): Promise<number> {
  const options = parseCleanupOptions(args);
  if (options === null) {
    process.stdout.write(`usage: ${CLEANUP_USAGE}\n`);
    return 0;
  }
  try {
    return await cleanupCommand(options, (line) => process.stdout.write(`${line}\n`));
  } catch (err) {
    if (err instanceof AdminError) throw new LoadtestError(err.message);
    throw err;
  }
}

export async function loadtestCommand(args: string[]): Promise<number> {
  if (args.includes('--cleanup')) return cleanup(args);
  const options = parseLoadtestOptions(args);
  if (options === null) {
    process.stdout.write(`usage: ${LOADTEST_USAGE}\n   or: ${CLEANUP_USAGE}\n`);
    return 0;
  }
  const abort = new AbortController();
  const onInt = () => {
    process.stdout.write('stopping: the report covers what was sent (Ctrl-C again to quit at once)\n');
    process.off('SIGINT', onInt);
    abort.abort();
  };
  process.on('SIGINT', onInt);
  try {
    const report = await runLoadtest(options, { signal: abort.signal });
    return report.verdict.pass ? 0 : 1;
  } finally {
    process.off('SIGINT', onInt);
  }
}
