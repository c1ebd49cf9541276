// The queued prompts of the current session: edited and removed through `agent/session/queue/*`
// (docs/protocol.md). The view follows the `queue.*` events that answer these requests.
import { pathToFileURL } from "node:url";
import type { AgentClient } from "../client/server";
import type { PromptInput, PromptPart, QueuedPrompt } from "../../shared/protocol";

/** The error a queued prompt's request fails with when the user took it out of the queue. */
export const UNQUEUED = -32016;

/** Whether a prompt's request failed because the user removed it from the queue (not worth a notice). */
export function removedByUser(err: unknown): boolean {
  const e = err as { code?: number; message?: string };
  return e.code === UNQUEUED && /removed from the queue/.test(e.message ?? "");
}

/** A queued part (the core's form: a file by path) as a prompt part again (a file by URI). */
export function promptPart(part: PromptInput): PromptPart {
  if (part.type !== "file") return part;
  if (part.data) return { type: "file", mime: part.mime ?? "image/png", data: part.data, name: part.path };
  const out: PromptPart = { type: "file", uri: pathToFileURL(part.path).toString() };
  if (part.range) out.range = part.range;
  if (part.mime) out.mime = part.mime;
  return out;
}

export async function listQueue(client: AgentClient, sessionID: string): Promise<QueuedPrompt[]> {
  return (await client.request<{ items: QueuedPrompt[] }>("agent/session/queue/list", { sessionID })).items;
}

/** Replace a queued prompt's text; what goes with it (files, images, an @agent) stays. */
export async function updateQueued(client: AgentClient, sessionID: string, queueID: string, text: string): Promise<void> {
  const item = (await listQueue(client, sessionID)).find((q) => q.id === queueID);
  if (item === undefined) throw new Error("that message is no longer queued: it has started or was removed");
  const parts: PromptPart[] = [{ type: "text", text }, ...item.parts.filter((p) => p.type !== "text").map(promptPart)];
  await client.request("agent/session/queue/update", { sessionID, queueID, parts });
}

export async function removeQueued(client: AgentClient, sessionID: string, queueID: string): Promise<void> {
  await client.request("agent/session/queue/remove", { sessionID, queueID });
}
