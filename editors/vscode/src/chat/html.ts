// The webview's HTML: a strict Content-Security-Policy (only our nonce'd script and our stylesheet;
// no remote content, no inline handlers), so model output rendered inside can never run code.
import * as crypto from "node:crypto";
import type * as vscode from "vscode";

export function chatHtml(webview: vscode.Webview, extensionUri: vscode.Uri, uriJoin: typeof vscode.Uri.joinPath): string {
  const nonce = crypto.randomBytes(18).toString("base64");
  const script = webview.asWebviewUri(uriJoin(extensionUri, "dist", "webview.js"));
  const style = webview.asWebviewUri(uriJoin(extensionUri, "media", "chat.css"));
  const setup = webview.asWebviewUri(uriJoin(extensionUri, "media", "firstrun.css"));
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<link rel="stylesheet" href="${setup.toString()}">
<title>agentls</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
