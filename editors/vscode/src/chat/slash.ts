// The `/` menu's requests: the commands to list (`agent/commands`), running one in the current session
// (`agent/session/command`), and the client-side `/export` (the session as Markdown in an editor).
import * as vscode from "vscode";
import type { CommandList, PromptPart } from "../../shared/protocol";
import type { Attachment } from "./messages";
import type { ChatHost } from "./host";

/** Attachments as prompt parts: an image by its content, any other file by URI for the server to read. */
export function attachmentParts(attachments: Attachment[]): PromptPart[] {
  return attachments.map((a): PromptPart => {
    // A context item (@problems, @terminal, …) goes as the text its chip counted.
    if (a.context !== undefined) return { type: "context", kind: a.context.kind, label: a.context.label, text: a.context.text };
    // The server names an inline image by its file name (at most 255 characters), not its path.
    if (a.image !== undefined) return { type: "file", mime: a.image.mime, data: a.image.data, name: (a.label.split("/").pop() ?? "image").slice(-255) };
    return a.range ? { type: "file", uri: a.uri, range: a.range } : { type: "file", uri: a.uri };
  });
}

export async function listCommands(view: ChatHost): Promise<void> {
  const list = await view.client.request<CommandList>("agent/commands", {});
  // `file:line: why`, the file named as the Explorer shows it (relative to the workspace when in it).
  const errors = list.errors.map((e) => e.replace(/^(.+?):(\d+): /, (_, file: string, line: string) => `${vscode.workspace.asRelativePath(file)}:${line}: `));
  view.post({ type: "commands", commands: list.commands, errors });
}

/**
 * Run `/command arguments` in the current session (a new one if none is open). A command that fails
 * goes back into the prompt box, as a prompt does, with the reason in the view; an undo or redo
 * reloads the transcript it changed.
 */
export async function runCommand(view: ChatHost, command: string, args: string, attachments: Attachment[]): Promise<void> {
  const sessionID = await view.currentSession();
  const params: Record<string, unknown> = { sessionID, command, arguments: args };
  const parts = attachmentParts(attachments);
  if (parts.length > 0) params.parts = parts;
  let result: CommandResult;
  try {
    result = await view.client.request<CommandResult>("agent/session/command", params);
  } catch (err) {
    if ((err as { code?: number }).code === -32800) return; // stopped by the user
    view.post({ type: "restorePrompt", text: args ? `/${command} ${args}` : `/${command}`, attachments });
    view.notice(`/${command} failed (it is back in the box): ${(err as Error).message ?? String(err)}`);
    return;
  }
  if (result.revert !== null && result.revert !== undefined) await view.refresh();
  await showAnswer(view, command, args, result);
}

/** What a built-in answers besides a turn (docs/protocol.md, agent/session/command). */
interface CommandResult {
  revert?: unknown;
  text?: string | null;
  items?: { id: string; label: string; detail?: string }[] | null;
}

/**
 * A built-in's answer for the user: `/rewind` lists the messages to go back to (a quick pick; the pick
 * runs `/rewind ID`), the others say what they did (`text`) in a notification.
 */
async function showAnswer(view: ChatHost, command: string, args: string, result: CommandResult): Promise<void> {
  if (command === "rewind" && !args && result.items?.length) {
    const picked = await vscode.window.showQuickPick(
      result.items.map((i) => ({ label: i.label, detail: i.detail, id: i.id })),
      { title: "agentls: go back to before which message?" },
    );
    if (picked !== undefined) await runCommand(view, "rewind", picked.id, []);
    return;
  }
  const text = result.text?.trim();
  if (text) void vscode.window.showInformationMessage(`agentls /${command}: ${text.length > 600 ? `${text.slice(0, 600)}…` : text}`);
}
