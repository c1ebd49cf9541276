// Plan review (issue 42): a plan the plan agent presents (`plan.review.asked`) opens as a read-only
// Markdown document (`agentls-plan:`) with CodeLens Approve | Revise | Reject on its first line. The
// comments API notes comments on its lines ("Add Plan Comment", kept as drafts); Revise sends them
// with an optional message (`agent/plan/reply`). The chat shows the same plan as a dialog card whose
// buttons run these commands. Plans still waiting are listed again whenever the server (re)starts.
import * as vscode from "vscode";
import type { AgentClient } from "../client/server";
import type { AgentEvent, PlanReviewRequest } from "../../shared/protocol";
import { trace } from "../trace";

export const PLAN_SCHEME = "agentls-plan";

class PlanNote implements vscode.Comment {
  mode = vscode.CommentMode.Preview;
  author = { name: "You" };
  contextValue = "agentlsPlanDraft";
  label = "Pending: goes with Revise";
  constructor(public body: string) {}
}

interface Pending {
  request: PlanReviewRequest;
  uri: vscode.Uri;
  threads: vscode.CommentThread[];
}

type Answer = "approve" | "revise" | "reject";

export class PlanReviews implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  private readonly pending = new Map<string, Pending>();
  private readonly controller: vscode.CommentController;
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  private readonly changed = new vscode.EventEmitter<PlanReviewRequest[]>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  /** The plans waiting, whenever one arrives or goes (the chat's dialog cards follow it). */
  readonly onDidChangePlans = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly client: AgentClient) {
    this.controller = vscode.comments.createCommentController("agentls.plan", "agentls plan");
    this.controller.options = { prompt: "Comment on the plan…", placeHolder: "What should the plan agent change here?" };
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (document) =>
        this.byUri(document.uri) === undefined ? [] : [new vscode.Range(0, 0, Math.max(0, document.lineCount - 1), 0)],
    };
    const id = (arg: unknown): string | undefined => (typeof arg === "string" ? arg : undefined);
    this.disposables.push(
      this.controller,
      this.lensesChanged,
      this.changed,
      vscode.workspace.registerTextDocumentContentProvider(PLAN_SCHEME, this),
      vscode.languages.registerCodeLensProvider({ scheme: PLAN_SCHEME }, this),
      vscode.commands.registerCommand("agentls.plan.addComment", (reply: vscode.CommentReply) => this.addComment(reply)),
      vscode.commands.registerCommand("agentls.plan.deleteComment", (note: PlanNote) => this.deleteComment(note)),
      vscode.commands.registerCommand("agentls.plan.open", (arg?: unknown) => this.open(this.pick(id(arg)))),
      vscode.commands.registerCommand("agentls.plan.approve", (arg?: unknown) => this.answer(this.pick(id(arg)), "approve")),
      vscode.commands.registerCommand("agentls.plan.revise", (arg?: unknown) => this.answer(this.pick(id(arg)), "revise")),
      vscode.commands.registerCommand("agentls.plan.reject", (arg?: unknown) => this.answer(this.pick(id(arg)), "reject")),
      client.onEvent((event) => this.onEvent(event)),
      client.onReady(() => void this.resume()),
    );
  }

  /** The plans waiting for review, oldest first. */
  get requests(): PlanReviewRequest[] {
    return [...this.pending.values()].map((p) => p.request);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.byUri(uri)?.request.text ?? "This plan was answered; it is no longer under review.\n";
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const pending = this.byUri(document.uri);
    if (pending === undefined) return [];
    const top = new vscode.Range(0, 0, 0, 0);
    const comments = this.notes(pending).length;
    const revise = comments > 0 ? `$(comment) Revise (${comments} comment${comments === 1 ? "" : "s"})` : "$(comment) Revise…";
    const args = [pending.request.id];
    return [
      new vscode.CodeLens(top, { title: "$(check) Approve plan", command: "agentls.plan.approve", arguments: args }),
      new vscode.CodeLens(top, { title: revise, command: "agentls.plan.revise", arguments: args }),
      new vscode.CodeLens(top, { title: "$(close) Reject…", command: "agentls.plan.reject", arguments: args }),
    ];
  }

  private byUri(uri: vscode.Uri): Pending | undefined {
    if (uri.scheme !== PLAN_SCHEME) return undefined;
    return [...this.pending.values()].find((p) => p.uri.toString() === uri.toString());
  }

  /** The plan meant: the one named, else the one in the active editor, else the newest. */
  private pick(requestID: string | undefined): Pending | undefined {
    if (requestID !== undefined) return this.pending.get(requestID);
    const active = vscode.window.activeTextEditor?.document.uri;
    const shown = active !== undefined ? this.byUri(active) : undefined;
    return shown ?? [...this.pending.values()].at(-1);
  }

  private onEvent(event: AgentEvent): void {
    if (event.type === "plan.review.asked") void this.show(event.properties.request, true);
    else if (event.type === "plan.review.replied" || event.type === "plan.review.cancelled") this.close(event.properties.requestID);
  }

  private async resume(): Promise<void> {
    try {
      const { requests } = await this.client.request<{ requests: PlanReviewRequest[] }>("agent/plan/list", {});
      for (const request of requests) if (!this.pending.has(request.id)) await this.show(request, false);
    } catch (err) {
      trace("planListFailed", { error: String(err) });
    }
  }

  private async show(request: PlanReviewRequest, focus: boolean): Promise<void> {
    const uri = vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/${request.id}/${request.path}` });
    const pending: Pending = { request, uri, threads: [] };
    this.pending.set(request.id, pending);
    this.changed.fire(this.requests);
    trace("planAsked", { requestID: request.id, path: request.path });
    await this.open(pending, !focus);
  }

  private async open(pending: Pending | undefined, preserveFocus = false): Promise<void> {
    if (pending === undefined) {
      void vscode.window.showInformationMessage("agentls: no plan waits for review");
      return;
    }
    const document = await vscode.workspace.openTextDocument(pending.uri);
    await vscode.languages.setTextDocumentLanguage(document, "markdown");
    await vscode.window.showTextDocument(document, { preview: false, preserveFocus });
    trace("planOpened", { requestID: pending.request.id });
  }

  private close(requestID: string): void {
    const pending = this.pending.get(requestID);
    if (pending === undefined) return;
    this.pending.delete(requestID);
    for (const thread of pending.threads) thread.dispose();
    this.lensesChanged.fire();
    this.changed.fire(this.requests);
    // Its tab goes: a revision arrives as a new plan (a new tab), an answered one is done.
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === pending.uri.toString());
    if (tabs.length > 0) void vscode.window.tabGroups.close(tabs);
    trace("planClosed", { requestID });
  }

  private notes(pending: Pending): Array<{ line: number; text: string }> {
    return pending.threads.flatMap((thread) =>
      thread.comments.filter((c): c is PlanNote => c instanceof PlanNote).map((note) => ({ line: thread.range?.start.line ?? 0, text: note.body })),
    );
  }

  private addComment(reply: vscode.CommentReply): void {
    const pending = this.byUri(reply.thread.uri);
    if (pending === undefined || !reply.text.trim()) return;
    const thread = reply.thread;
    thread.comments = [...thread.comments, new PlanNote(reply.text.trim())];
    thread.canReply = true;
    thread.label = "Plan comment (sent with Revise)";
    if (!pending.threads.includes(thread)) pending.threads.push(thread);
    this.lensesChanged.fire();
    trace("planCommentAdded", { line: thread.range?.start.line ?? null });
  }

  private deleteComment(note: PlanNote): void {
    for (const pending of this.pending.values()) {
      for (const thread of pending.threads) {
        if (!thread.comments.includes(note)) continue;
        thread.comments = thread.comments.filter((c) => c !== note);
        if (thread.comments.length === 0) {
          pending.threads = pending.threads.filter((t) => t !== thread);
          thread.dispose();
        }
      }
    }
    this.lensesChanged.fire();
  }

  private async answer(pending: Pending | undefined, reply: Answer): Promise<void> {
    if (pending === undefined) {
      void vscode.window.showInformationMessage("agentls: no plan waits for review");
      return;
    }
    const comments = reply === "revise" ? this.notes(pending) : [];
    let message: string | undefined;
    if (reply !== "approve") {
      const typed = await vscode.window.showInputBox({
        title: reply === "revise" ? "Revise the plan" : "Reject the plan",
        prompt: reply === "revise" ? (comments.length > 0 ? `With your ${comments.length} comment(s); a message too (optional)` : "What should the plan agent change?") : "Why (optional): the agent reads it",
        ignoreFocusOut: true,
      });
      if (typed === undefined) return; // Escape: the plan still waits
      message = typed.trim() || undefined;
      if (reply === "revise" && comments.length === 0 && message === undefined) {
        void vscode.window.showWarningMessage("agentls: say what to change (a comment on the plan's lines, or a message)");
        return;
      }
    }
    trace("planAnswered", { requestID: pending.request.id, reply, comments: comments.length });
    try {
      await this.client.request("agent/plan/reply", { requestID: pending.request.id, reply, ...(message !== undefined ? { message } : {}), comments });
    } catch (err) {
      void vscode.window.showErrorMessage(`agentls: the answer was not taken (${String(err)}); the plan still waits`);
    }
  }

  dispose(): void {
    for (const pending of this.pending.values()) for (const thread of pending.threads) thread.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
