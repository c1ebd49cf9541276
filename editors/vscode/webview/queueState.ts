// The session's queued prompts as the view shows them: built from `queue.*` events (docs/protocol.md)
// and the snapshot's `agent/session/queue/list`. No DOM: unit-tested with node's test runner.
import type { AgentEvent, PromptInput, QueuedPrompt } from "../shared/protocol.ts";

/** Apply a `queue.*` event to the list (next first); false when the event is not a queue event. */
export function applyQueueEvent(queue: QueuedPrompt[], event: AgentEvent): QueuedPrompt[] | undefined {
  switch (event.type) {
    case "queue.added": {
      const rest = queue.filter((q) => q.id !== event.properties.item.id);
      const at = Math.max(0, Math.min(event.properties.position, rest.length));
      return [...rest.slice(0, at), event.properties.item, ...rest.slice(at)];
    }
    case "queue.updated":
      return queue.map((q) => (q.id === event.properties.item.id ? event.properties.item : q));
    case "queue.removed":
    case "queue.started":
      return queue.filter((q) => q.id !== event.properties.id);
    default:
      return undefined;
  }
}

/** The text the user typed for a queued prompt (its text parts). */
export function queuedText(item: QueuedPrompt): string {
  return item.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
}

/** The names of what goes with it besides the text (attached files, images, an @agent). */
export function queuedExtras(item: QueuedPrompt): string[] {
  return item.parts.flatMap((p: PromptInput) => {
    if (p.type === "file") return [p.path.split(/[\\/]/).pop() ?? p.path];
    if (p.type === "agent") return [`@${p.name}`];
    return [];
  });
}
