// Sub-agents inside their task card: a running `task` part names its child session
// (`state.metadata.sessionID`, docs/protocol.md "Sub-agents"); the child's own events are kept here,
// by child session, and drawn nested under the card. A child's children go to the same card.
// Plain TypeScript with no DOM (the reducer's tests run it in node).
import type { AgentEvent, MessageWithParts, Part, PermissionRequest } from "../shared/protocol.ts";

/** The steps of one child session, shown under the task card `taskPart` of the transcript. */
export interface ChildSteps {
  taskPart: string;
  /** The child's assistant parts, in order (its prompt, a user message, is the task's input). */
  parts: Part[];
  userMessages: Set<string>;
  busy: boolean;
}

export type Subtasks = Map<string, ChildSteps>;

/** The child session a `task` tool part runs, once the server has named it. */
export function childSession(part: Part): string | undefined {
  if (part.type !== "tool" || part.tool !== "task") return undefined;
  const id = "metadata" in part.state ? part.state.metadata?.sessionID : undefined;
  return typeof id === "string" ? id : undefined;
}

/** The parts of the task cards whose child is `sessionID` (for the renderer), none when unknown. */
export function stepsOf(subtasks: Subtasks, taskPart: string): ChildSteps[] {
  return [...subtasks.values()].filter((c) => c.taskPart === taskPart);
}

/** A task part was written: follow its child (nested under `taskPart`, the card that shows it). */
export function follow(subtasks: Subtasks, part: Part, taskPart: string = part.id): void {
  const child = childSession(part);
  if (child !== undefined && !subtasks.has(child)) subtasks.set(child, { taskPart, parts: [], userMessages: new Set(), busy: part.type === "tool" && part.state.status === "running" });
}

/** Fill the children of a loaded session from what the server has of them. */
export function loadChildren(subtasks: Subtasks, children: Record<string, MessageWithParts[]> | undefined): void {
  // Children of children are named in their parent's parts: loop until nothing new comes.
  let added = true;
  while (added && children !== undefined) {
    added = false;
    for (const [id, messages] of Object.entries(children)) {
      const steps = subtasks.get(id);
      if (steps === undefined || steps.parts.length > 0 || messages.length === 0) continue;
      for (const m of messages) {
        if (m.info.role === "user") {
          steps.userMessages.add(m.info.id);
          continue;
        }
        for (const p of m.parts) {
          steps.parts.push({ ...p } as Part);
          const before = subtasks.size;
          follow(subtasks, p, steps.taskPart);
          added ||= subtasks.size > before;
        }
      }
      steps.busy = false;
    }
  }
}

function upsert(steps: ChildSteps, incoming: Part): Part {
  const part = { ...incoming } as Part;
  const i = steps.parts.findIndex((p) => p.id === part.id);
  if (i >= 0) {
    steps.parts[i] = part;
  } else {
    let j = steps.parts.length;
    while (j > 0 && steps.parts[j - 1].id > part.id) j--;
    steps.parts.splice(j, 0, part);
  }
  return part;
}

/**
 * An event of a session that is not the one on screen: applied to the child it belongs to. Returns
 * the task card to redraw, or undefined when the event is not a child's.
 */
export function applyChildEvent(subtasks: Subtasks, event: AgentEvent, sessionID: string): string | undefined {
  const steps = subtasks.get(sessionID);
  if (steps === undefined) return undefined;
  switch (event.type) {
    case "message.updated":
      if (event.properties.info.role === "user") steps.userMessages.add(event.properties.info.id);
      break;
    case "message.part.updated": {
      const part = event.properties.part;
      if (steps.userMessages.has(part.messageID)) break;
      upsert(steps, part);
      follow(subtasks, part, steps.taskPart);
      break;
    }
    case "message.part.delta": {
      const p = event.properties;
      if (steps.userMessages.has(p.messageID)) break;
      let part = steps.parts.find((x) => x.id === p.partID);
      part ??= upsert(steps, { id: p.partID, sessionID: p.sessionID, messageID: p.messageID, type: "text", text: "" });
      const record = part as unknown as Record<string, unknown>;
      const current = record[p.field];
      record[p.field] = (typeof current === "string" ? current : "") + p.delta;
      break;
    }
    case "message.part.removed":
      steps.parts = steps.parts.filter((p) => p.id !== event.properties.partID);
      break;
    case "session.status":
      steps.busy = event.properties.status.type !== "idle";
      break;
    case "session.idle":
      steps.busy = false;
      break;
    default:
      return undefined;
  }
  return steps.taskPart;
}

/** Whether a dialog was asked by a task of the session on screen (or by a task of one of its tasks). */
export function askedByTask(subtasks: Subtasks, request: PermissionRequest, sessionID: string): boolean {
  const parent = request.task?.sessionID;
  return parent !== undefined && (parent === sessionID || subtasks.has(parent));
}
