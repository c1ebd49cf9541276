// `workspace/applyEdit` from agentls, applied as the shared contract says: one labelled undo step per
// edit, then every document it touched is saved before the answer, so buffer = disk and the user never
// sees a "file changed on disk" conflict. A buffer with unsaved user text keeps it, under the agent's edit.
import * as vscode from "vscode";
import {
  type ApplyWorkspaceEditParams,
  type ApplyWorkspaceEditResult,
  CreateFile,
  DeleteFile,
  type LanguageClient,
  RenameFile,
  TextDocumentEdit,
  type TextEdit,
} from "vscode-languageclient/node";
import { trace } from "../trace";
import { sendFreshDiagnostics } from "./diagnostics";

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
}

/** The WorkspaceEdit to apply and the files it leaves with content, or why it cannot be applied. */
function convert(
  client: LanguageClient,
  params: ApplyWorkspaceEditParams,
): { edit: vscode.WorkspaceEdit; touched: vscode.Uri[] } | string {
  const p2c = client.protocol2CodeConverter;
  const metadata: vscode.WorkspaceEditEntryMetadata = {
    label: params.label ?? "agentls",
    needsConfirmation: false,
  };
  const edit = new vscode.WorkspaceEdit();
  const touched = new Map<string, vscode.Uri>();
  const replace = (uri: vscode.Uri, edits: readonly TextEdit[]): void => {
    for (const e of edits) edit.replace(uri, p2c.asRange(e.range), e.newText, metadata);
    touched.set(uri.toString(), uri);
  };
  for (const change of params.edit.documentChanges ?? []) {
    if (TextDocumentEdit.is(change)) {
      const uri = p2c.asUri(change.textDocument.uri);
      const open = openDocument(uri);
      const version = change.textDocument.version;
      // The server built the edit against this version of the buffer; if the user typed since, it
      // would land in the wrong place. Refusing makes the server re-read and rebase it.
      if (open !== undefined && version !== null && open.version !== version) {
        return `${uri.fsPath} is at version ${open.version}, the edit was made for version ${version}`;
      }
      replace(uri, change.edits.filter((e): e is TextEdit => "range" in e && "newText" in e));
    } else if (CreateFile.is(change)) {
      const uri = p2c.asUri(change.uri);
      edit.createFile(uri, { overwrite: change.options?.overwrite, ignoreIfExists: change.options?.ignoreIfExists }, metadata);
      touched.set(uri.toString(), uri);
    } else if (RenameFile.is(change)) {
      const from = p2c.asUri(change.oldUri);
      const to = p2c.asUri(change.newUri);
      edit.renameFile(from, to, { overwrite: change.options?.overwrite, ignoreIfExists: change.options?.ignoreIfExists }, metadata);
      touched.delete(from.toString());
      touched.set(to.toString(), to);
    } else if (DeleteFile.is(change)) {
      const uri = p2c.asUri(change.uri);
      edit.deleteFile(uri, { recursive: change.options?.recursive, ignoreIfNotExists: change.options?.ignoreIfNotExists }, metadata);
      touched.delete(uri.toString());
    }
  }
  for (const [uri, edits] of Object.entries(params.edit.changes ?? {})) replace(p2c.asUri(uri), edits);
  return { edit, touched: [...touched.values()] };
}

async function save(uri: vscode.Uri): Promise<boolean> {
  // applyEdit loads a file no editor shows into a (hidden) document; saving that writes the disk.
  const document = openDocument(uri) ?? (await vscode.workspace.openTextDocument(uri));
  return document.isDirty ? document.save() : true;
}

export async function applyAgentEdit(
  client: LanguageClient,
  params: ApplyWorkspaceEditParams,
): Promise<ApplyWorkspaceEditResult> {
  const converted = convert(client, params);
  if (typeof converted === "string") {
    trace("editRefused", { label: params.label, reason: converted });
    return { applied: false, failureReason: converted };
  }
  if (!(await vscode.workspace.applyEdit(converted.edit))) {
    return { applied: false, failureReason: "VS Code could not apply the edit" };
  }
  const unsaved: string[] = [];
  for (const uri of converted.touched) {
    if (!(await save(uri))) unsaved.push(uri.fsPath);
  }
  trace("editApplied", {
    label: params.label,
    files: converted.touched.map((u) => u.fsPath),
    dirty: converted.touched.filter((u) => openDocument(u)?.isDirty ?? false).map((u) => u.fsPath),
  });
  sendFreshDiagnostics((method, p) => void client.sendNotification(method, p), converted.touched);
  if (unsaved.length > 0) {
    // The edit is in the buffers (and their undo history); only saving failed. Say so, so the server
    // writes nothing behind the editor's back and the model learns the file is not on disk.
    void vscode.window.showWarningMessage(`agentls: could not save ${unsaved.join(", ")}`);
  }
  return { applied: true };
}
