// MCP resources in the `@` pick (docs/protocol.md, agent/mcp/resources): each running server's
// resources as `@server:uri`, its resource templates as `@server:template` (the user is asked for
// each variable). The server reads the resource (`{kind: "mcp"}` context item) and counts it, as
// for every other item; what cannot be attached (binary, too large) says why in a warning.
import * as vscode from "vscode";
import type { McpResourceItem, McpResourcesResult } from "../../shared/protocol";
import type { Attachment } from "./messages";
import type { ChatHost } from "./host";
import { resolveItems } from "./contextItems";

export interface McpPick extends vscode.QuickPickItem {
  mcp?: { server: string; uri?: string; template?: string; arguments?: string[] };
}

/** How long the `@` pick waits for the servers' list: a server still starting never holds it up. */
const LIST_WAIT_MS = 1500;

/** The MCP entries of the `@` pick (none when no server offers resources, or the server is down or still starting). */
export async function mcpPicks(view: ChatHost): Promise<McpPick[]> {
  let listed: McpResourcesResult | undefined;
  try {
    if (!view.client.running) return [];
    const late = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), LIST_WAIT_MS));
    listed = await Promise.race([view.client.request<McpResourcesResult>("agent/mcp/resources", {}), late]);
  } catch {
    return []; // the files and other items are still offered; attaching says what failed
  }
  if (listed === undefined) return [];
  const picks: McpPick[] = [
    ...listed.resources.map((r) => ({
      label: `@${r.server}:${r.uri}`,
      detail: r.description || r.name,
      description: r.mimeType,
      mcp: { server: r.server, uri: r.uri },
    })),
    ...listed.templates.map((t) => ({
      label: `@${t.server}:${t.uriTemplate}`,
      detail: t.description || t.name,
      description: `template: ${t.arguments.join(", ")}`,
      mcp: { server: t.server, template: t.uriTemplate, arguments: t.arguments },
    })),
  ];
  return picks.length === 0 ? [] : [{ label: "MCP resources", kind: vscode.QuickPickItemKind.Separator }, ...picks];
}

/** The picked MCP entry resolved on the server: the chip's attachment (undefined: cancelled or refused). */
export async function mcpAttachment(view: ChatHost, pick: McpPick): Promise<Attachment | undefined> {
  const chosen = pick.mcp;
  if (chosen === undefined) return undefined;
  let item: McpResourceItem = { kind: "mcp", server: chosen.server, uri: chosen.uri };
  if (chosen.template !== undefined) {
    const values: Record<string, string> = {};
    for (const name of chosen.arguments ?? []) {
      const value = await vscode.window.showInputBox({ title: `@${chosen.server}:${chosen.template}`, prompt: `The value of ${name}` });
      if (!value) return undefined;
      values[name] = value;
    }
    item = { kind: "mcp", server: chosen.server, template: chosen.template, arguments: values };
  }
  const [resolved] = await resolveItems(view, [item]);
  if (resolved.error) {
    void vscode.window.showWarningMessage(`agentls: ${resolved.error}`);
    return undefined;
  }
  return { label: resolved.label, context: resolved };
}
