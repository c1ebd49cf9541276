// The session menu's search (agent/session/search) and a session as Markdown (agent/session/export),
// for the chat view's host side.
import * as vscode from "vscode";
import type { AgentClient } from "../client/server";
import type { MessageWithParts, SearchHit } from "../../shared/protocol";

const SEARCH_LIMIT = 30;
/** Messages a chat loads at a time: the newest page first, older ones as the user scrolls up. */
export const MESSAGE_PAGE = 100;

/** The page of messages before `before` (oldest first), and whether there are older ones still. */
export async function olderMessages(client: AgentClient, sessionID: string, before: string): Promise<{ messages: MessageWithParts[]; more: boolean }> {
  const { messages } = await client.request<{ messages: MessageWithParts[] }>("agent/session/messages", { sessionID, limit: MESSAGE_PAGE, before });
  return { messages, more: messages.length === MESSAGE_PAGE };
}

/** The sessions matching `query`, or the server's reason a query is not valid. */
export async function searchSessions(client: AgentClient, query: string): Promise<{ hits: SearchHit[]; error?: string }> {
  try {
    const { hits } = await client.request<{ hits: SearchHit[] }>("agent/session/search", { query, limit: SEARCH_LIMIT });
    // Sub-agent sessions are found through their parents' task cards, like the list shows them.
    return { hits: hits.filter((h) => !h.session.parentID) };
  } catch (err) {
    return { hits: [], error: err instanceof Error ? err.message : String(err) };
  }
}

/** Open the session as Markdown in an untitled editor (the user saves it where they like). */
export async function exportSession(client: AgentClient, sessionID: string | undefined): Promise<void> {
  if (sessionID === undefined) {
    void vscode.window.showInformationMessage("agentls: no session to export yet.");
    return;
  }
  const { text } = await client.request<{ format: string; text: string }>("agent/session/export", { sessionID, format: "md" });
  const doc = await vscode.workspace.openTextDocument({ language: "markdown", content: text });
  await vscode.window.showTextDocument(doc, { preview: false });
}
