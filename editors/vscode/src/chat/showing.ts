// Which sessions this window's chats show (the sidebar's and the editor tabs'), told to the server
// (`agent/session/show`): attached to an agent host (docs/host.md), the other front ends showing
// one of them say "also open in Visual Studio Code", and this window's chats say who else shows
// theirs (`session.watchers`). Sent again whenever the list changes, and to a new server process.
import * as vscode from "vscode";
import type { AgentClient } from "../client/server";
import { trace } from "../trace";

/** A chat, as far as this needs it: the session it shows (once loaded) and when that changes. */
export interface ShownChat {
  readonly session: { id: string } | undefined;
  readonly onDidChange: vscode.Event<void>;
}

export class Showing implements vscode.Disposable {
  private sent: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly client: AgentClient,
    private readonly chats: () => ShownChat[],
  ) {
    this.disposables.push(
      client.onReady(() => {
        this.sent = undefined; // a new server process knows nothing of them
        this.update();
      }),
    );
  }

  /** Follow `chat`'s session from now on (until the returned disposable is disposed). */
  watch(chat: ShownChat): vscode.Disposable {
    return chat.onDidChange(() => this.update());
  }

  /** Tell the server the sessions shown now, when they differ from what it was last told. */
  update(): void {
    if (!this.client.running) return;
    const sessionIDs = [...new Set(this.chats().flatMap((chat) => (chat.session ? [chat.session.id] : [])))].sort();
    const key = sessionIDs.join(" ");
    if (key === this.sent) return;
    this.sent = key;
    trace("sessionsShown", { sessionIDs });
    this.client.notify("agent/session/show", { sessionIDs });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

