// What the chat's helpers (actions, context items, pickers, slash commands) use of the chat view
// that drives them: its server, its session, what it shows. ChatView implements it; the helpers
// name this instead of the view, so the view can build them without a loop of imports.
import type { AgentClient } from "../client/server";
import type { PermissionRequest, Session } from "../../shared/protocol";
import type { ToWebview } from "./messages";

export interface ChatHost {
  readonly client: AgentClient;
  /** The session the chat shows (none in an empty chat: it makes one when the user sends or chooses). */
  readonly sessionID: string | undefined;
  /** That session as the server last described it (its worktree, if it works in one). */
  readonly session: Session | undefined;
  /**
   * The session the chat shows, or the one its empty chat creates now (one, however many ask);
   * `prepare` runs on a session this call creates, before the chat shows it.
   */
  currentSession(prepare?: (sessionID: string) => Promise<void>): Promise<string>;
  /** Open permission dialogs by request id (all sessions'). */
  readonly permissions: Map<string, PermissionRequest>;
  /** The model picked in the view for the next prompt, if any. */
  readonly pickedModel: string | undefined;
  post(message: ToWebview): void;
  pickModel(model: string | undefined): void;
  /** Everything from the server again (sessions, the session's messages, dialogs). */
  refresh(): Promise<void>;
  sendSessions(before?: string): Promise<void>;
  select(sessionID: string | undefined): Promise<void>;
  /** An empty chat, whose session is made by its first prompt or choice. */
  newSession(): Promise<void>;
  notice(message: string): void;
  clearNotice(): void;
}
