// The review of the agent's changes in VS Code (issue 25): pending hunks marked in the editor with
// CodeLens Keep/Undo, the Changes view with its badge (in the panel, so that it never takes the
// chat's height in the side bar), a count in the chat's status line, navigation and keep/undo commands.
import * as vscode from "vscode";
import type { ChatView } from "../chat/view";
import type { DiffDocuments } from "../diff/provider";
import { ChangesView } from "./changes";
import { ReviewComments } from "./comments";
import { registerReviewCommands } from "./commands";
import { HunkDecorations } from "./decorations";
import { registerProposals } from "./proposal";
import { ReviewState } from "./state";

export function registerReview(context: vscode.ExtensionContext, view: ChatView, diffs: DiffDocuments): vscode.Disposable[] {
  const state = new ReviewState(view.client, () => view.sessionID, view.onDidChange);
  const decorations = new HunkDecorations(state, vscode.Uri.joinPath(context.extensionUri, "media"));
  const changes = new ChangesView(state, decorations);
  return [
    state,
    decorations,
    changes,
    new ReviewComments(state, decorations, () => view.reveal()),
    // The chat shows the count in its status line; the changes themselves are reviewed in the editor.
    state.onDidChange(() => view.setReviewPending(state.count)),
    vscode.languages.registerCodeLensProvider({ scheme: "file" }, decorations),
    ...registerReviewCommands(state, decorations, diffs),
    ...registerProposals(async (requestID, edited) => {
      await view.client.request("agent/permission/reply", edited === undefined ? { requestID, reply: "once" } : { requestID, reply: "once", edited });
    }),
  ];
}
