// A session in an editor tab: a webview panel with the same chat as the sidebar (the same webview code
// and host logic, ChatView), showing its own session with its own status, dialogs and queue. One tab
// per session; opening a session that has one brings it to the front.
import * as vscode from "vscode";
import type { AgentClient } from "../client/server";
import type { Actions } from "./actions";
import type { Showing } from "./showing";
import { ChatView } from "./view";

export const PANEL_TYPE = "agentls.session";

export class SessionPanels implements vscode.Disposable {
  private readonly open = new Map<ChatView, vscode.WebviewPanel>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly client: AgentClient,
    private readonly actions: (view: ChatView) => Actions,
    /** Told of each tab's session (the server learns which sessions this window shows). */
    private readonly showing?: Showing,
  ) {}

  /** The chats in editor tabs. */
  get views(): ChatView[] {
    return [...this.open.keys()];
  }

  /** Show `sessionID` in an editor tab beside the current editor (its tab if it has one). */
  show(sessionID: string): ChatView {
    for (const [view, panel] of this.open) {
      if (view.sessionID === sessionID) {
        panel.reveal();
        return view;
      }
    }
    const panel = vscode.window.createWebviewPanel(PANEL_TYPE, "agentls", { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, { enableScripts: true, retainContextWhenHidden: true });
    panel.iconPath = vscode.Uri.joinPath(this.context.extensionUri, "media", "icon.svg");
    const view = new ChatView(this.context, this.client, this.actions, { sessionID, reveal: () => panel.reveal() });
    const title = (): void => {
      panel.title = view.session?.title ?? "agentls";
    };
    const changed = view.onDidChange(title);
    const shown = this.showing?.watch(view);
    view.resolveWebviewView(panel);
    this.open.set(view, panel);
    panel.onDidDispose(() => {
      this.open.delete(view);
      changed.dispose();
      shown?.dispose();
      view.dispose();
      this.showing?.update();
    });
    return view;
  }

  dispose(): void {
    for (const panel of [...this.open.values()]) panel.dispose();
  }
}

/** Take the user to `sessionID`: its editor tab if it has one, else the sidebar's chat. */
export async function showSession(view: ChatView, panels: SessionPanels, sessionID: string): Promise<void> {
  const tab = panels.views.find((v) => v.sessionID === sessionID);
  if (tab !== undefined) return tab.reveal();
  if (view.sessionID !== sessionID) await view.select(sessionID);
  await view.reveal();
}

export function panelCommands(view: ChatView, panels: SessionPanels): vscode.Disposable[] {
  return [
    // The sidebar's session (or the one a session menu row names) in an editor tab.
    vscode.commands.registerCommand("agentls.openSessionInTab", async (sessionID?: string) => {
      const id = typeof sessionID === "string" ? sessionID : view.sessionID;
      if (id === undefined) {
        void vscode.window.showInformationMessage("agentls: no session to open yet.");
        return;
      }
      panels.show(id);
    }),
  ];
}
