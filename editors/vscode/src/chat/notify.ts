// Telling the user what happened while they looked elsewhere: a badge on the chat view counts the
// dialogs waiting for an answer and the turns that ended unseen; while the view is hidden or the
// window is not focused, a notification says that a turn ended (`session.idle`); a dialog
// (`permission.asked` / `question.asked`) is announced unless a chat in sight (the sidebar's or an
// editor tab's) shows its session — a sub-agent's dialog belongs to the session whose task asks
// (docs/protocol.md "Sub-agents"). The button takes the user to that session's chat. The setting
// `agentls.notifications` (on by default) turns both off. A background sub-agent that ends
// (`background.agent.ended`) is announced too, with its summary.
import * as vscode from "vscode";
import type { AgentEvent, Session } from "../../shared/protocol";
import { trace } from "../trace";
import type { ChatView } from "./view";

const SETTING = "notifications";
const OPEN = "Open Chat";

export class Notifier implements vscode.Disposable {
  /** Dialogs waiting for an answer, by request id (their session's id as the value). */
  private readonly dialogs = new Map<string, string>();
  /** Sessions whose turn ended while the user could not see the view. */
  private readonly unseen = new Set<string>();
  /** Sessions that are a subagent's (a child of another): their turns are part of the parent's. */
  private readonly children = new Set<string>();
  private readonly titles = new Map<string, string>();
  private readonly disposables: vscode.Disposable[] = [];

  /** `chats`: every chat (the sidebar's and the editor tabs'); `show`: bring a session's chat into sight. */
  constructor(
    private readonly view: ChatView,
    private readonly chats: () => ChatView[] = () => [view],
    private readonly show: (sessionID: string) => Promise<void> = async (sessionID) => {
      if (view.sessionID !== sessionID) await view.select(sessionID);
      await view.reveal();
    },
  ) {
    this.disposables.push(
      view.client.onEvent((event) => this.onEvent(event)),
      view.onDidResolveView((webview) => {
        this.disposables.push(webview.onDidChangeVisibility(() => this.seen()));
        this.draw();
      }),
      vscode.window.onDidChangeWindowState(() => this.seen()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (!event.affectsConfiguration(`agentls.${SETTING}`)) return;
        trace("notificationsSetting", { enabled: this.enabled });
        this.draw();
      }),
    );
  }

  private get enabled(): boolean {
    return vscode.workspace.getConfiguration("agentls").get<boolean>(SETTING, true);
  }

  /** Whether the user can see the chat view now. */
  private get watching(): boolean {
    return this.view.webviewView?.visible === true && vscode.window.state.focused;
  }

  /** Whether a chat in sight shows this session now. */
  private shown(sessionID: string): boolean {
    return vscode.window.state.focused && this.chats().some((chat) => chat.visible && chat.sessionID === sessionID);
  }

  private onEvent(event: AgentEvent): void {
    switch (event.type) {
      case "session.created":
      case "session.updated":
        if (event.properties.info.parentID) this.children.add(event.properties.info.id);
        this.titles.set(event.properties.info.id, event.properties.info.title);
        return;
      case "session.idle": {
        const sessionID = event.properties.sessionID;
        trace("turnEnded", { sessionID, visible: this.view.webviewView?.visible ?? null, focused: vscode.window.state.focused });
        if (this.children.has(sessionID) || this.watching) return;
        this.unseen.add(sessionID);
        this.draw();
        void this.title(sessionID).then((title) => this.tell(`agentls: the turn in "${title}" ended.`, sessionID));
        return;
      }
      case "permission.asked":
      case "question.asked": {
        const request = event.properties.request;
        const sessionID = ("task" in request ? request.task?.sessionID : undefined) ?? request.sessionID;
        this.dialogs.set(request.id, sessionID);
        this.draw();
        if (this.shown(sessionID)) return;
        const what = event.type === "permission.asked" ? `asks to ${event.properties.request.permission}` : "has a question";
        void this.title(sessionID).then((title) => this.tell(`agentls: the agent ${what} and waits for your answer ("${title}").`, sessionID));
        return;
      }
      case "background.agent.ended": {
        // A background sub-agent ended: said whether or not its parent is in sight (its report
        // starts a turn there, which the user may want to watch).
        const { agent, summary } = event.properties;
        const how = agent.status === "completed" ? `finished: ${summary}` : agent.status === "stopped" ? "was stopped" : summary;
        this.tell(`agentls: the background sub-agent @${agent.agent} (${agent.description}) ${how}`, agent.parentID);
        return;
      }
      case "permission.replied":
      case "question.replied":
      case "question.rejected":
      case "plan.review.replied": {
        const { requestID, by } = event.properties;
        const shown = this.dialogs.delete(requestID);
        if (shown) this.draw();
        // Another front end of the agent host answered it: its dialog here closed under the user.
        if (by !== undefined) this.answeredElsewhere(event.type === "question.rejected" ? "dismissed" : "answered", by);
        return;
      }
      default:
        return;
    }
  }

  /** The session's title: known from the view or the events, else asked of the server. */
  private async title(sessionID: string): Promise<string> {
    const known = this.view.session?.id === sessionID ? this.view.session.title : this.titles.get(sessionID);
    if (known !== undefined) return known;
    const session = await this.view.client.request<Session>("agent/session/get", { sessionID }).catch(() => undefined);
    return session?.title ?? "a session";
  }

  /** The view is in sight again: what ended meanwhile has been seen. */
  private seen(): void {
    if (!this.watching || this.unseen.size === 0) return;
    this.unseen.clear();
    this.draw();
  }

  private draw(): void {
    const webview = this.view.webviewView;
    if (webview === undefined) return;
    const count = this.enabled ? this.dialogs.size + this.unseen.size : 0;
    const parts = [this.dialogs.size ? `${this.dialogs.size} waiting for your answer` : "", this.unseen.size ? `${this.unseen.size} finished` : ""].filter(Boolean);
    webview.badge = count > 0 ? { value: count, tooltip: `agentls: ${parts.join(", ")}` } : undefined;
    trace("badge", { count });
  }

  /** "agentls: the agent's question was answered in Neovim." — no button: nothing is left to do. */
  private answeredElsewhere(how: "answered" | "dismissed", by: string): void {
    trace("answeredElsewhere", { how, by });
    if (!this.enabled) return;
    void vscode.window.showInformationMessage(`agentls: the dialog was ${how} in ${by}.`);
  }

  private tell(message: string, sessionID: string): void {
    if (!this.enabled) return;
    trace("notification", { message });
    void vscode.window.showInformationMessage(message, OPEN).then(async (choice) => {
      if (choice !== OPEN) return;
      await this.show(sessionID);
      this.seen();
    });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
