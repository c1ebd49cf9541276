// How a worktree session is named to the user, by the chat (webview) and by the extension host alike:
// plain TypeScript with neither `vscode` nor the DOM, unit-tested (test/worktrees.test.ts).
import type { Session, SessionWorktree } from "./protocol.ts";

/** Where a session works when it is not the checkout: its worktree, or undefined. */
export function worktreeOf(session: Session | undefined): SessionWorktree | undefined {
  return session?.worktree ?? undefined;
}

/** The short label beside a session's title: the worktree's name (its branch is in the tooltip). */
export function worktreeLabel(worktree: SessionWorktree): string {
  return `worktree: ${worktree.name}`;
}

/** The label's tooltip: where the session's files are, and that the checkout is not touched. */
export function worktreeTooltip(worktree: SessionWorktree): string {
  return `This session works in the worktree ${worktree.path} on the branch ${worktree.branch}; your checkout is untouched until you merge it (agentls: Worktrees).`;
}
