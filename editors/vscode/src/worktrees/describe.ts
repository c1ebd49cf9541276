// What the Worktrees commands show, as plain functions of the server's answers (no `vscode`): the
// quick pick's rows, the name check of the input box, the branch's diff cut into files, the words
// after a merge. Unit-tested in test/worktrees.test.ts.

import type { WorktreeInfo, WorktreeMerge, WorktreeMergeResult } from "../../shared/protocol";

export type MergeHow = NonNullable<WorktreeMerge["how"]>;

/** The server's own rule for a worktree name (core/worktrees/service.py), checked as the user types. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/**
 * Why `typed` cannot name a new worktree (the input box shows it under the field), or undefined when
 * it can; empty is fine: the server names it from the time.
 */
export function nameProblem(typed: string, taken: readonly string[]): string | undefined {
  const name = typed.trim();
  if (name === "") return undefined;
  if (!NAME.test(name)) return "Letters, digits, '.', '_' and '-', starting with a letter or digit, at most 63 characters.";
  if (name.endsWith(".lock") || name.includes("..")) return `"${name}" does not make a valid git branch name.`;
  if (taken.includes(name)) return `A worktree named "${name}" exists already: choose another name.`;
  return undefined;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A worktree's state in a few words: gone, merged, changed files, uncommitted ones, its sessions. */
export function worktreeState(w: WorktreeInfo): string {
  if (w.missing) return "missing (its folder is gone: discard it)";
  const bits: string[] = [];
  if (w.merged) bits.push("merged");
  bits.push(w.changed.length === 0 ? "no changes" : `${plural(w.changed.length, "file")} changed`);
  if (w.uncommitted > 0) bits.push(`${w.uncommitted} uncommitted`);
  if (w.sessionIDs.length > 0) bits.push(plural(w.sessionIDs.length, "session"));
  return bits.join(" · ");
}

/** A quick pick row of a worktree: its name, its branch and state, the files it changed. */
export function worktreeRow(w: WorktreeInfo): { label: string; description: string; detail: string } {
  const files = w.changed.slice(0, 5).join(", ") + (w.changed.length > 5 ? ", …" : "");
  return { label: w.name, description: `${w.branch} · ${worktreeState(w)}`, detail: files || w.path };
}

/** One file's part of a `git diff`: its path (the new one; the old for a deletion) and its patch. */
export interface FilePatch {
  file: string;
  patch: string;
}

/** Cut a multi-file `git diff` into its files, in order. */
export function splitDiff(diff: string): FilePatch[] {
  const out: FilePatch[] = [];
  for (const chunk of diff.split(/^(?=diff --git )/m)) {
    if (!chunk.startsWith("diff --git ")) continue;
    const plus = /^\+\+\+ b\/(.+)$/m.exec(chunk)?.[1];
    const minus = /^--- a\/(.+)$/m.exec(chunk)?.[1];
    const header = /^diff --git a\/(.+?) b\/(.+)$/m.exec(chunk);
    const file = plus ?? minus ?? header?.[2];
    if (file !== undefined) out.push({ file, patch: chunk });
  }
  return out;
}

/** What a merge ended in, as one message for the user; a conflict names its files and the way back. */
export function mergeMessage(name: string, result: WorktreeMergeResult): string {
  const said = result.message.replace(/\.$/, "");
  if (result.outcome === "merged") return `${said}.`;
  if (result.outcome === "conflict") {
    return `${said}. Conflicting: ${result.files.join(", ")}. Nothing is lost: the worktree ${name} still holds its version.`;
  }
  return `Not merged: ${said}.`;
}
