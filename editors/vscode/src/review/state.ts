// The current session's pending hunks, kept in step with the server: fetched with `agent/review/list`
// when the session changes or the server (re)starts, updated by `review.updated` events. Keep and
// undo go through here; an undo whose lines the user changed since comes back as a conflict that the
// user resolves (conflicts.ts) — nothing is overwritten without them choosing.
import * as vscode from "vscode";
import type { AgentClient } from "../client/server";
import type { AgentEvent } from "../../shared/protocol";
import { trace } from "../trace";
import { type Hunk, type ReviewResult, byFile } from "./hunks";

export class ReviewState implements vscode.Disposable {
  private hunks = new Map<string, Hunk>();
  private session: string | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private files = new Map<string, Hunk[]>();
  private readonly changedEmitter = new vscode.EventEmitter<void>();
  private readonly conflictEmitter = new vscode.EventEmitter<ReviewResult>();
  private readonly disposables: vscode.Disposable[] = [];
  /** The pending hunks changed (added, kept, undone, another session). */
  readonly onDidChange = this.changedEmitter.event;
  /** An undo came back with conflicts: the user picks what each becomes. */
  readonly onConflicts = this.conflictEmitter.event;

  constructor(
    readonly client: AgentClient,
    private readonly currentSession: () => string | undefined,
    onSessionChange: vscode.Event<void>,
  ) {
    this.disposables.push(
      client.onEvent((event) => this.onEvent(event)),
      client.onReady(() => void this.reload()),
      onSessionChange(() => {
        if (this.currentSession() !== this.session) void this.reload();
      }),
      this.changedEmitter,
      this.conflictEmitter,
    );
  }

  get sessionID(): string | undefined {
    return this.session;
  }

  get pending(): Hunk[] {
    return [...this.hunks.values()];
  }

  get count(): number {
    return this.hunks.size;
  }

  /** Files with pending hunks (project-relative), in name order, each with its hunks by line. */
  get byFile(): Map<string, Hunk[]> {
    return this.files;
  }

  /** The pending hunks of the file `uri` (a `file:` URI string). */
  inFile(uri: string): Hunk[] {
    for (const hunks of this.files.values()) if (hunks[0]?.uri === uri) return hunks;
    return [];
  }

  get(id: string): Hunk | undefined {
    return this.hunks.get(id);
  }

  async reload(): Promise<void> {
    const sessionID = this.currentSession();
    this.session = sessionID;
    if (sessionID === undefined || !this.client.running) {
      this.replace([]);
      return;
    }
    try {
      const { hunks } = await this.client.request<{ hunks: Hunk[] }>("agent/review/list", { sessionID });
      if (this.currentSession() === sessionID) this.replace(hunks);
    } catch (err) {
      trace("reviewListFailed", { error: String(err) });
      this.replace([]);
    }
  }

  private replace(hunks: Hunk[]): void {
    const started = performance.now();
    this.hunks = new Map(hunks.filter((h) => h.state === "pending").map((h) => [h.id, h]));
    this.regroup();
    this.changedEmitter.fire(); // the editors' decorations and the Changes view, synchronously
    // The whole synchronous block the extension host spends on a fresh list (the 50 ms goal).
    trace("reviewList", { hunks: this.hunks.size, ms: performance.now() - started });
  }

  private onEvent(event: AgentEvent): void {
    if (event.type !== "review.updated" || event.properties.sessionID !== this.session) return;
    // The event's hunks carry no URI: new ones are read again with the list (one request per burst).
    let added = false;
    for (const hunk of event.properties.changed) {
      if (hunk.state !== "pending") this.hunks.delete(hunk.id);
      else if (this.hunks.has(hunk.id)) this.hunks.set(hunk.id, { ...hunk, uri: this.hunks.get(hunk.id)?.uri ?? "" });
      else added = true;
    }
    this.regroup();
    trace("reviewUpdated", { pending: this.hunks.size, added });
    this.changedEmitter.fire();
    if (added) this.reloadSoon();
  }

  private reloadSoon(): void {
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => void this.reload(), 50);
  }

  private regroup(): void {
    for (const hunk of this.hunks.values()) if (hunk.uri) hunk.uri = vscode.Uri.parse(hunk.uri).toString();
    this.files = byFile([...this.hunks.values()]);
    void vscode.commands.executeCommand("setContext", "agentls.pendingHunks", this.hunks.size);
  }

  /** Keep hunks by id, every hunk of a file (its `file:` URI), or all pending ones. */
  async keep(choice: { hunkIDs?: string[]; uri?: string } = {}): Promise<ReviewResult> {
    return this.call("agent/review/keep", choice);
  }

  /** Undo hunks (chosen as for keep); conflicts go to `onConflicts`. */
  async undo(choice: { hunkIDs?: string[]; uri?: string } = {}): Promise<ReviewResult> {
    const result = await this.call("agent/review/undo", choice);
    if (result.conflicts.length > 0) this.conflictEmitter.fire(result);
    return result;
  }

  private async call(method: string, choice: { hunkIDs?: string[]; uri?: string }): Promise<ReviewResult> {
    const sessionID = this.session;
    if (sessionID === undefined) return { changed: [], conflicts: [] };
    const result = await this.client.request<ReviewResult>(method, { sessionID, ...choice });
    // The event brings the same news; applying the answer too keeps the view right if it is late.
    for (const hunk of result.changed) if (hunk.state !== "pending") this.hunks.delete(hunk.id);
    this.regroup();
    this.changedEmitter.fire();
    trace(method === "agent/review/keep" ? "reviewKept" : "reviewUndone", {
      changed: result.changed.map((h) => h.id),
      conflicts: result.conflicts.map((c) => c.hunkID),
    });
    return result;
  }

  dispose(): void {
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    for (const d of this.disposables) d.dispose();
  }
}
