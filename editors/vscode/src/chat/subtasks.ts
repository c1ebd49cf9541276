// The sub-agents of a session the view loads: the messages of the child sessions its task cards
// name (docs/protocol.md "Sub-agents"), and of their children, for the webview to nest under them.
import type { AgentClient } from "../client/server";
import type { MessageWithParts, PermissionRequest } from "../../shared/protocol";

const MAX_DEPTH = 4;

function childIds(messages: MessageWithParts[]): string[] {
  const ids: string[] = [];
  for (const m of messages) {
    for (const p of m.parts) {
      const id = p.type === "tool" && p.tool === "task" && "metadata" in p.state ? p.state.metadata?.sessionID : undefined;
      if (typeof id === "string") ids.push(id);
    }
  }
  return ids;
}

/** Child session id → its messages, for every task of `messages` (and of theirs, a few levels down). */
export async function childMessages(client: AgentClient, messages: MessageWithParts[]): Promise<Record<string, MessageWithParts[]>> {
  const children: Record<string, MessageWithParts[]> = {};
  let wanted = childIds(messages);
  for (let depth = 0; depth < MAX_DEPTH && wanted.length > 0; depth++) {
    const fetched = await Promise.all(
      wanted.map((sessionID) => client.request<{ messages: MessageWithParts[] }>("agent/session/messages", { sessionID }).then((r) => r.messages, () => [])),
    );
    wanted.forEach((id, i) => (children[id] = fetched[i]));
    wanted = fetched.flatMap(childIds).filter((id) => children[id] === undefined);
  }
  return children;
}

/** The dialogs the view of `sessionID` shows: its own, and those its sub-agents ask. */
export function dialogsOf(requests: PermissionRequest[], sessionID: string, children: Record<string, unknown>): PermissionRequest[] {
  return requests.filter((r) => r.sessionID === sessionID || (r.task !== undefined && (r.task.sessionID === sessionID || r.task.sessionID in children)));
}
