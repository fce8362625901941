/**
 * The Node.js versions laurel runs on (docs/operations.md, "Node.js"): 20 from 20.11 (what it is
 * built, tested and shipped with) and 22. uWebSockets.js (uws-pack 20.0.8) carries a native binary
 * for each of these majors; none for 24 or later. `engines` in package.json says the same.
 */

/** The supported majors and, for each, the oldest minor. */
export const SUPPORTED_NODE: Readonly<Record<number, number>> = { 20: 11, 22: 0 };

/** Why Node.js `version` (such as `20.20.2`) cannot run laurel, as a sentence; null when it can. */
export function nodeProblem(version: string): string | null {
  const m = /^v?(\d+)\.(\d+)\.\d+/.exec(version);
  const major = m ? Number(m[1]) : NaN;
  const minor = m ? Number(m[2]) : NaN;
  const least = SUPPORTED_NODE[major];
  if (least !== undefined && minor >= least) return null;
  return `Node.js ${version} cannot run laurel: it runs on Node.js 20 (20.11 or later) or 22, the versions its ` +
    'uWebSockets.js build (uws-pack 20.0.8) has a native binary for. Install Node.js 20 (for example `nvm install 20`) and start it again.';
}
