/** Types of scripts/build.mjs (plain JavaScript, run before anything is compiled). */
export interface Part {
  name: string;
  /** Files and folders below the root whose contents the part is built from. */
  inputs: string[];
  /** A file the build makes: missing, the part is stale. */
  output: string;
  /** Commands run in order from the root, each `[command, ...args]`. */
  commands: string[][];
}
export const STAMPS: string;
export const PARTS: Part[];
export function inputHash(root: string, inputs: string[]): string;
export function readStamps(root: string): Record<string, string>;
export function staleness(root: string, part: Part, stamps?: Record<string, string>): string | null;
export function build(options: { root: string; parts?: Part[]; force?: boolean; log?: (line: string) => void }): { part: string; why: string }[];
