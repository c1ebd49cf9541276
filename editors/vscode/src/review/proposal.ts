// The agent's proposed file, editable before the user accepts it (Ask mode): a permission request
// whose metadata says `editable` opens in a diff editor whose right side is a writable in-memory
// document (`agentls-proposal:`). Accepting (the dialog's Allow, or the editor's Accept action) sends
// the text the user made of it as `edited` (docs/protocol.md, agent/permission/reply).
import * as path from "node:path";
import * as vscode from "vscode";
import { trace } from "../trace";

export const PROPOSAL_SCHEME = "agentls-proposal";

interface Proposal {
  uri: vscode.Uri;
  after: string;
  sessionID?: string;
}

class ProposalFiles implements vscode.FileSystemProvider {
  private readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;

  put(uri: vscode.Uri, text: string): void {
    this.files.set(uri.path, { data: new TextEncoder().encode(text), mtime: Date.now() });
  }

  text(uri: vscode.Uri): string | undefined {
    const file = this.files.get(uri.path);
    return file && new TextDecoder().decode(file.data);
  }

  forget(uri: vscode.Uri): void {
    this.files.delete(uri.path);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const file = this.files.get(uri.path);
    if (file === undefined) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    return { type: vscode.FileType.File, ctime: file.mtime, mtime: file.mtime, size: file.data.byteLength };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    const file = this.files.get(uri.path);
    if (file === undefined) throw vscode.FileSystemError.FileNotFound(uri);
    return file.data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    this.files.set(uri.path, { data: content, mtime: Date.now() });
    this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }
  readDirectory(): [string, vscode.FileType][] {
    return [];
  }
  createDirectory(): void {}
  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
}

class Proposals {
  readonly files = new ProposalFiles();
  private readonly open = new Map<string, Proposal>();

  /** Show the agent's proposal for `file` next to the file as it is, the proposal editable. */
  async show(requestID: string, file: string, after: string, title: string, sessionID?: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${requestID}/${path.basename(file)}` });
    if (!this.open.has(requestID)) this.files.put(uri, after);
    this.open.set(requestID, { uri, after, sessionID });
    const target = vscode.Uri.file(file);
    let left = target;
    try {
      await vscode.workspace.fs.stat(target);
    } catch {
      left = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${requestID}/empty/${path.basename(file)}` });
      this.files.put(left, "");
    }
    await vscode.commands.executeCommand("vscode.diff", left, uri, `${title} (editable: your version is what gets written)`, { preview: false });
  }

  /** The text the user made of request `requestID`'s proposal, when it differs from the agent's. */
  edited(requestID: string): string | undefined {
    const proposal = this.open.get(requestID);
    if (proposal === undefined) return undefined;
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === proposal.uri.toString());
    const text = document?.getText() ?? this.files.text(proposal.uri);
    trace("proposalEdited", { requestID, edited: text !== undefined && text !== proposal.after });
    return text !== undefined && text !== proposal.after ? text : undefined;
  }

  /** The request shown in the active editor, if it is a proposal. */
  activeRequest(): string | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri;
    if (uri?.scheme !== PROPOSAL_SCHEME) return undefined;
    return uri.path.split("/")[1];
  }

  /** Close the proposals `which` picks (answered, or their turn ended); an edited one is saved first
   * (into memory) so closing asks nothing. */
  async close(which: (requestID: string, p: Proposal) => boolean): Promise<void> {
    const done = [...this.open].filter(([id, p]) => which(id, p));
    if (done.length === 0) return;
    const uris = new Set(done.map(([, p]) => p.uri.toString()));
    for (const document of vscode.workspace.textDocuments) if (uris.has(document.uri.toString()) && document.isDirty) await document.save();
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && uris.has(tab.input.modified.toString()));
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
    for (const [id, p] of done) {
      this.open.delete(id);
      this.files.forget(p.uri);
    }
  }
}

/** One per extension host: the chat's dialog and the editor's Accept action both read it. */
export const proposals = new Proposals();

export function registerProposals(reply: (requestID: string, edited: string | undefined) => Promise<void>): vscode.Disposable[] {
  return [
    vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, proposals.files, { isCaseSensitive: true }),
    vscode.commands.registerCommand("agentls.review.acceptProposal", async () => {
      const requestID = proposals.activeRequest();
      if (requestID !== undefined) await reply(requestID, proposals.edited(requestID));
    }),
  ];
}
