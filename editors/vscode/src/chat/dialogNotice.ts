// A dialog of a session that is on no screen (not in the sidebar's chat, not in a visible editor tab)
// shows a notification whose "Show" takes the user there. A sub-agent's dialog belongs to the session
// whose task asks (docs/protocol.md "Sub-agents").
import * as vscode from "vscode";
import type { AgentClient } from "../client/server";
import type { Session } from "../protocol";
import type { ChatView } from "./view";

export function watchDialogs(client: AgentClient, chats: () => ChatView[], show: (sessionID: string) => Promise<void>): vscode.Disposable {
  return client.onEvent((event) => {
    if (event.type !== "permission.asked" && event.type !== "question.asked") return;
    const request = event.properties.request;
    const sessionID = ("task" in request ? request.task?.sessionID : undefined) ?? request.sessionID;
    if (chats().some((chat) => chat.visible && chat.sessionID === sessionID)) return;
    void notify(client, sessionID, event.type === "permission.asked" ? "asks for a permission" : "asks you a question", show);
  });
}

async function notify(client: AgentClient, sessionID: string, what: string, show: (sessionID: string) => Promise<void>): Promise<void> {
  const session = await client.request<Session>("agent/session/get", { sessionID }).catch(() => undefined);
  const choice = await vscode.window.showInformationMessage(`agentls: "${session?.title ?? sessionID}" ${what}.`, "Show");
  if (choice === "Show") await show(sessionID);
}
