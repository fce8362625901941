/**
 * Imported first by the command line (src/cli.ts), before any module that loads uWebSockets.js's
 * native binary: on a Node.js laurel does not run on, it says so and exits with 1, rather than
 * failing later with the binary's own error or running untested.
 */
import { nodeProblem } from '../lib/node-version.js';

const problem = nodeProblem(process.versions.node);
if (problem !== null) {
  process.stderr.write(`laurel: ${problem}\n`);
  process.exit(1);
}
