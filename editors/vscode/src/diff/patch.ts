// Unified diffs as the server sends them (`agent/session/diff`, tool metadata): the text before a change
// is rebuilt from the text after it, so a diff editor can show both sides. Plain TypeScript, unit-tested.

interface Hunk {
  newStart: number; // 1-based line of the new side
  oldLines: string[];
  newLines: string[];
}

const HEADER = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

export function parseHunks(patch: string): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Hunk | undefined;
  for (const line of patch.split("\n")) {
    const header = HEADER.exec(line);
    if (header) {
      current = { newStart: Number(header[1]), oldLines: [], newLines: [] };
      hunks.push(current);
    } else if (current !== undefined) {
      if (line.startsWith("+")) current.newLines.push(line.slice(1));
      else if (line.startsWith("-")) current.oldLines.push(line.slice(1));
      else if (line.startsWith(" ")) {
        current.oldLines.push(line.slice(1));
        current.newLines.push(line.slice(1));
      }
      // "\ No newline at end of file" and blank trailing lines carry no content.
    }
  }
  return hunks;
}

/**
 * The text before the patch, given the text after it; undefined when the patch does not fit `after`
 * (the file changed again since).
 */
export function reversePatch(after: string, patch: string): string | undefined {
  const lines = after.split("\n");
  // Apply from the bottom so earlier hunks' line numbers stay valid.
  for (const hunk of parseHunks(patch).reverse()) {
    const start = Math.max(0, hunk.newStart - 1);
    const found = lines.slice(start, start + hunk.newLines.length);
    if (found.length !== hunk.newLines.length || found.some((line, i) => line !== hunk.newLines[i])) {
      return undefined;
    }
    lines.splice(start, hunk.newLines.length, ...hunk.oldLines);
  }
  return lines.join("\n");
}

/** Lines added and removed by a patch. */
export function countChanges(patch: string): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const line of patch.split("\n")) {
    if (line.startsWith("+++") || line.startsWith("---")) continue;
    if (line.startsWith("+")) additions++;
    else if (line.startsWith("-")) deletions++;
  }
  return { additions, deletions };
}
