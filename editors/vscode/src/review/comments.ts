// Review comments with the VS Code comments API: on files with pending agent hunks the user comments
// on lines of a change ("Add Review Comment" keeps a draft), then "Submit Review" sends every draft
// to the agent as one prompt (`agent/review/comment`), like a pull-request review.
import * as path from "node:path";
import * as vscode from "vscode";
import { trace } from "../trace";
import type { HunkDecorations } from "./decorations";
import type { ReviewState } from "./state";

const DRAFT = "Pending";
const SENT = "Sent to the agent";

class Note implements vscode.Comment {
  mode = vscode.CommentMode.Preview;
  author = { name: "You" };
  contextValue = "agentlsDraft";
  label: string = DRAFT;
  constructor(public body: string) {}
}

export class ReviewComments implements vscode.Disposable {
  private readonly controller: vscode.CommentController;
  private readonly threads = new Set<vscode.CommentThread>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly state: ReviewState,
    private readonly decorations: HunkDecorations,
    private readonly reveal: () => Promise<void>,
  ) {
    this.controller = vscode.comments.createCommentController("agentls.review", "agentls review");
    this.controller.options = { prompt: "Comment on the agent's change…", placeHolder: "What should the agent change here?" };
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (document) =>
        document.uri.scheme !== "file"
          ? []
          : this.decorations.placed(document).map((p) => new vscode.Range(p.start, 0, Math.max(p.start, p.end - 1), 0)),
    };
    this.disposables.push(
      this.controller,
      vscode.commands.registerCommand("agentls.review.addComment", (reply: vscode.CommentReply) => this.add(reply)),
      vscode.commands.registerCommand("agentls.review.deleteComment", (note: Note) => this.remove(note)),
      vscode.commands.registerCommand("agentls.review.submit", () => this.submit()),
    );
  }

  private drafts(): Array<{ thread: vscode.CommentThread; note: Note }> {
    return [...this.threads].flatMap((thread) => thread.comments.filter((c): c is Note => c instanceof Note && c.label === DRAFT).map((note) => ({ thread, note })));
  }

  private count(): void {
    void vscode.commands.executeCommand("setContext", "agentls.reviewDrafts", this.drafts().length);
  }

  private add(reply: vscode.CommentReply): void {
    if (!reply.text.trim()) return;
    const thread = reply.thread;
    thread.comments = [...thread.comments, new Note(reply.text.trim())];
    thread.canReply = true;
    thread.label = "Review comment (not sent yet: Submit Review)";
    this.threads.add(thread);
    trace("reviewCommentAdded", { line: thread.range?.start.line ?? null });
    this.count();
  }

  private remove(note: Note): void {
    for (const thread of this.threads) {
      if (!thread.comments.includes(note)) continue;
      thread.comments = thread.comments.filter((c) => c !== note);
      if (thread.comments.length === 0) {
        this.threads.delete(thread);
        thread.dispose();
      }
    }
    this.count();
  }

  async submit(): Promise<void> {
    const drafts = this.drafts();
    const sessionID = this.state.sessionID;
    if (drafts.length === 0 || sessionID === undefined) {
      void vscode.window.showInformationMessage("agentls: no review comments to submit");
      return;
    }
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? "";
    const comments = await Promise.all(
      drafts.map(async ({ thread, note }) => {
        const range = thread.range ?? new vscode.Range(0, 0, 0, 0);
        const document = await vscode.workspace.openTextDocument(thread.uri);
        const hunk = this.decorations.placed(document).find((p) => p.start <= range.end.line && range.start.line <= Math.max(p.start, p.end - 1));
        const body = note.body;
        return {
          path: path.relative(root, thread.uri.fsPath) || thread.uri.fsPath,
          startLine: range.start.line + 1,
          endLine: range.end.line + 1,
          body,
          ...(hunk ? { hunkID: hunk.hunk.id } : {}),
        };
      }),
    );
    for (const { note, thread } of drafts) {
      note.label = SENT;
      thread.comments = [...thread.comments];
      thread.label = "Review comment (sent)";
    }
    this.count();
    trace("reviewSubmitted", { comments: comments.length });
    void this.reveal();
    try {
      await this.state.client.request("agent/review/comment", { sessionID, comments });
    } catch (err) {
      for (const { note, thread } of drafts) {
        note.label = DRAFT;
        thread.comments = [...thread.comments];
      }
      this.count();
      void vscode.window.showErrorMessage(`agentls: the review was not sent: ${String(err)}`);
    }
  }

  dispose(): void {
    for (const thread of this.threads) thread.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
