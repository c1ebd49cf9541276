// The status bar item: what the current session is doing, with its title; a click opens the chat.
import * as vscode from "vscode";
import type { ChatView } from "./chat/view";
import { worktreeOf, worktreeTooltip } from "../shared/worktree";

export function statusItem(view: ChatView): vscode.Disposable {
  const item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  item.command = "agentls.focus";
  const update = (): void => {
    const status = view.status;
    const worktree = worktreeOf(view.session);
    // A worktree session says so beside its title: its edits are not in the checkout.
    const title = `${view.session?.title ?? "no session"}${worktree ? ` $(git-branch) ${worktree.name}` : ""}`;
    const phase = view.client.phase;
    if (phase === "missing" || phase === "stopped") {
      item.text = "$(circle-slash) agentls";
      item.tooltip = "agentls: the server is not running";
    } else if (phase === "starting" || phase === "restarting") {
      item.text = "$(loading~spin) agentls";
      item.tooltip = `agentls: ${phase} the server`;
    } else if (status.type === "busy") {
      item.text = `$(loading~spin) agentls: ${title}`;
      item.tooltip = "agentls is working — click to open the chat";
    } else if (status.type === "retry") {
      item.text = `$(warning) agentls: retrying (${status.attempt ?? 1})`;
      item.tooltip = status.message ?? "the model provider failed; retrying";
    } else {
      item.text = `$(comment-discussion) agentls: ${title}`;
      item.tooltip = "agentls is idle — click to open the chat";
    }
    if (worktree && phase !== "missing" && phase !== "stopped") item.tooltip = `${item.tooltip}\n${worktreeTooltip(worktree)}`;
  };
  update();
  item.show();
  const subscriptions = [view.onDidChange(update), view.client.onPhase(update)];
  return new vscode.Disposable(() => {
    for (const s of subscriptions) s.dispose();
    item.dispose();
  });
}
