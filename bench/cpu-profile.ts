/**
 * Where a process's CPU goes, from the profile node writes with `--cpu-prof` (a `.cpuprofile` in
 * `--cpu-prof-dir`, named with the process's pid, written as the process exits): the time of the
 * samples that fell in each function itself (its self time, not its callees'), the functions
 * grouped by name, file and line, the costliest first. `(idle)` (the event loop waiting) is left
 * out of the shares, `(garbage collector)` and `(program)` (node's own work outside JavaScript)
 * kept. A profile covers the process's whole life: its start, the bench's preparation and its
 * stop besides the load (bench/README.md says what a run's profile covers).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What node writes, as far as read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** A function's self time: ms, and its share of the process's busy time (idle left out). */
export interface FrameShare {
  frame: string;
  ms: number;
  share: number;
}

/** A process's frames: its role in the variant (`api`, `primary`, `workers`), its busy ms and its costliest frames. */
export interface ProcessFrames {
  role: string;
  busyMs: number;
  frames: FrameShare[];
}

/** A file as a reader of laurel knows it: from `dist/` or `node_modules/` on, or node's own. */
function fileOf(url: string): string {
  if (url === '') return '';
  const at = Math.max(url.lastIndexOf('/dist/'), url.lastIndexOf('/node_modules/'));
  return at >= 0 ? url.slice(at + 1) : url.replace(/^file:\/\//, '');
}

/** A frame's name: the function (or `(anonymous)`), then its file and line where it has one. */
function frameOf(f: CpuProfile['nodes'][number]['callFrame']): string {
  const name = f.functionName === '' ? '(anonymous)' : f.functionName;
  const file = fileOf(f.url);
  return file === '' ? name : `${name} ${file}:${f.lineNumber + 1}`;
}

/** Each frame's self time in ms, summed over the nodes that name it. */
export function selfTimes(profile: CpuProfile): Map<string, number> {
  const frameOfNode = new Map(profile.nodes.map((n) => [n.id, frameOf(n.callFrame)]));
  const times = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // Each sample stands for the time until the next one (the last, for the one before it).
  for (let i = 0; i < samples.length; i++) {
    const us = deltas[i + 1] ?? deltas[i] ?? 0;
    const frame = frameOfNode.get(samples[i]) ?? '(unknown)';
    times.set(frame, (times.get(frame) ?? 0) + Math.max(0, us) / 1000);
  }
  return times;
}

/** The `n` costliest frames of self times (several profiles' summed), with their shares of the busy time. */
export function topFrames(times: Map<string, number>, n = 10): { busyMs: number; frames: FrameShare[] } {
  const busy = [...times].filter(([frame]) => frame !== '(idle)');
  const busyMs = busy.reduce((s, [, ms]) => s + ms, 0);
  const frames = busy.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, n)
    .map(([frame, ms]) => ({ frame, ms, share: busyMs === 0 ? 0 : ms / busyMs }));
  return { busyMs, frames };
}

/** Self times summed over several maps. */
export function summed(all: Map<string, number>[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const times of all) for (const [frame, ms] of times) out.set(frame, (out.get(frame) ?? 0) + ms);
  return out;
}

/** The pid in a `.cpuprofile`'s name (`CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`); null for another name. */
export function pidOf(file: string): number | null {
  const m = /^CPU\.\d+\.\d+\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(file);
  return m === null ? null : Number(m[1]);
}

/**
 * The self times of every profile in `dir`, by the role of its process: `roles` names the pids the
 * bench started; any other (a process they started, as `laurel start` starts its api processes) is
 * `other`.
 */
export function readProfiles(dir: string, roles: Map<number, string>, other: string): Map<string, Map<string, number>[]> {
  const out = new Map<string, Map<string, number>[]>();
  for (const file of readdirSync(dir)) {
    const pid = pidOf(file);
    if (pid === null) continue;
    const role = roles.get(pid) ?? other;
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const list = out.get(role) ?? [];
    list.push(selfTimes(profile));
    out.set(role, list);
  }
  return out;
}
