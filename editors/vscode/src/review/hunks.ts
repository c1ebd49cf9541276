// The agent's pending hunks (`agent/review/list`, `review.updated`) and where they stand in a file now.
// Plain TypeScript (no vscode import), unit-tested: the user may have typed above a hunk since the
// agent wrote it, so a hunk is found by its lines near where the agent left them.

export type HunkState = "pending" | "kept" | "undone";

export interface Hunk {
  id: string;
  sessionID: string;
  file: string;
  uri: string;
  kind: "text" | "created" | "deleted" | "binary";
  state: HunkState;
  beforeStart: number;
  before: string[];
  afterStart: number;
  after: string[];
  /** The sub-agent that made it (its session is the hunk's); null or absent: the session's own agent. */
  agent?: { sessionID: string; name: string; description: string } | null;
}

export interface HunkConflict {
  hunkID: string;
  file: string;
  reason: string;
  agent: string[];
  current: string[];
}

export interface ReviewResult {
  changed: Hunk[];
  conflicts: HunkConflict[];
}

/** Where a hunk is in the text now: lines [start, end) (end == start: lines the agent removed). */
export interface Placed {
  hunk: Hunk;
  start: number;
  end: number;
  /** False when the agent's lines are not in the file as it wrote them (the user changed them). */
  found: boolean;
}

const strip = (line: string): string => line.replace(/\r?\n$/, "");

/** `lines` holds the hunk's `after` lines at `at`. */
function matches(lines: readonly string[], after: readonly string[], at: number): boolean {
  if (at < 0 || at + after.length > lines.length) return false;
  for (let i = 0; i < after.length; i++) if (lines[at + i] !== strip(after[i])) return false;
  return true;
}

/**
 * Place the pending hunks of one file in its current `lines`, oldest first. A text hunk is found by
 * its lines, searched outward from where the agent left them shifted by how far the hunk before it
 * moved. One not found (the user changed its lines), or a hunk that only removed lines, is placed
 * by the shift of the nearest hunk found before it — else after it: lines typed above the first
 * hunk move it too, though its own lines are no longer the agent's.
 */
export function place(lines: readonly string[], hunks: readonly Hunk[], window = 4000): Placed[] {
  const sorted = [...hunks].sort((a, b) => a.afterStart - b.afterStart);
  const found: (number | undefined)[] = [];
  let shift = 0;
  for (const hunk of sorted) {
    if (hunk.kind !== "text" || hunk.after.length === 0) {
      found.push(undefined);
      continue;
    }
    const guess = hunk.afterStart + shift;
    let at = -1;
    for (let d = 0; d <= window && at < 0; d++) {
      if (matches(lines, hunk.after, guess + d)) at = guess + d;
      else if (d > 0 && matches(lines, hunk.after, guess - d)) at = guess - d;
      if (guess + d >= lines.length && guess - d < 0) break;
    }
    found.push(at >= 0 ? at : undefined);
    if (at >= 0) shift = at - hunk.afterStart;
  }
  // The shift each unfound hunk goes by: the last found hunk's before it, else the next one's after.
  const shifts: number[] = new Array<number>(sorted.length).fill(0);
  let known: number | undefined;
  for (let i = sorted.length - 1; i >= 0; i--) {
    const at = found[i];
    if (at !== undefined) known = at - sorted[i].afterStart;
    shifts[i] = known ?? 0;
  }
  known = undefined;
  return sorted.map((hunk, i) => {
    if (hunk.kind !== "text") return { hunk, start: 0, end: Math.min(1, lines.length), found: true };
    const at = found[i];
    if (at !== undefined) {
      known = at - hunk.afterStart;
      return { hunk, start: at, end: at + hunk.after.length, found: true };
    }
    const start = Math.max(0, Math.min(hunk.afterStart + (known ?? shifts[i]), lines.length));
    const end = Math.min(lines.length, start + hunk.after.length);
    return { hunk, start, end, found: hunk.after.length === 0 };
  });
}

/** The placed hunks by the line their CodeLens goes on, top first: hunks that start on one line
 * (a removal just above a change) share one Keep | Undo pair instead of two on a line. */
export function lensLines(placed: readonly Placed[]): Placed[][] {
  const lines = new Map<number, Placed[]>();
  for (const p of [...placed].sort((a, b) => a.start - b.start)) lines.set(p.start, [...(lines.get(p.start) ?? []), p]);
  return [...lines.values()];
}

/** The placed hunk at 0-based `line` (a removal marks the line where the lines were). */
export function hunkAt(placed: readonly Placed[], line: number): Placed | undefined {
  return placed.find((p) => (p.end > p.start ? line >= p.start && line < p.end : line === p.start));
}

/** The first placed hunk after `line` (or before it, `direction` -1), wrapping around. */
export function nextHunk(placed: readonly Placed[], line: number, direction: 1 | -1): Placed | undefined {
  if (placed.length === 0) return undefined;
  const sorted = [...placed].sort((a, b) => a.start - b.start);
  if (direction === 1) return sorted.find((p) => p.start > line) ?? sorted[0];
  return [...sorted].reverse().find((p) => p.start < line && !(line < p.end)) ?? sorted[sorted.length - 1];
}

/** Pending hunks grouped by file, files in name order, each file's hunks by line. */
export function byFile(hunks: readonly Hunk[]): Map<string, Hunk[]> {
  const files = new Map<string, Hunk[]>();
  for (const hunk of [...hunks].sort((a, b) => a.file.localeCompare(b.file) || a.afterStart - b.afterStart)) {
    const list = files.get(hunk.file) ?? [];
    list.push(hunk);
    files.set(hunk.file, list);
  }
  return files;
}

/** "by @general: fix the parser" for a sub-agent's hunk, else "" (the session's own agent). */
export function byAgent(hunk: Hunk): string {
  return hunk.agent ? `by @${hunk.agent.name}: ${hunk.agent.description}` : "";
}

/**
 * "lines 3-5" (1-based): where the hunk is now (`start`, 0-based, as placed in the open document),
 * else where the agent's version has it, as the server labels a hunk.
 */
export function linesLabel(hunk: Hunk, start = hunk.afterStart): string {
  if (hunk.kind !== "text") return { created: "new file", deleted: "file deleted", binary: "binary file" }[hunk.kind];
  const first = start + 1;
  if (hunk.after.length === 0) return `${hunk.before.length} removed at line ${first}`;
  const last = first + hunk.after.length - 1;
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}
