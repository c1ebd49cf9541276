// "agentls: MCP Servers" (docs/protocol.md, agent/mcp/list and agent/mcp/set): a quick pick of the
// configured MCP servers — running with what each offers, failed with its last error, needing a
// login, disabled — and, for the one picked, Restart / Disable / Enable, and Log In for a remote one
// (the server opens the authorization page in the browser; it restarts once the login is done).
// Enable and disable go to the user's config.
import * as vscode from "vscode";
import type { McpServerInfo, McpServersResult } from "../../shared/protocol";
import type { AgentClient } from "../client/server";

const ICONS: Record<McpServerInfo["status"], string> = {
  running: "$(pass)",
  failed: "$(error)",
  "needs-login": "$(key)",
  disabled: "$(circle-slash)",
};

/** How a server reads in the pick: its state, and what it offers or why it failed. */
export function describe(s: McpServerInfo): string {
  const login = s.auth === "logged-in" ? " · logged in" : "";
  if (s.status === "running") return `running · ${s.tools} tools, ${s.resources} resources, ${s.prompts} prompts${login}`;
  if (s.status === "failed") return `failed: ${s.error ?? "no reason given"}`;
  if (s.status === "needs-login") return `needs login: choose Log In (or run agentls mcp login ${s.name})`;
  return "disabled";
}

/** What the user can do with a server: a remote one behind OAuth can be logged in to. */
function actionsFor(s: McpServerInfo): string[] {
  if (!s.enabled) return ["Enable"];
  if (s.status === "needs-login") return ["Log In", "Disable"];
  return s.auth === null ? ["Restart", "Disable"] : ["Restart", "Log In", "Disable"];
}

const WIRE: Record<string, string> = { Enable: "enable", Disable: "disable", Restart: "restart", "Log In": "login" };

/** Show the servers; act on the one picked (until the user closes the pick). */
export async function showMcpServers(client: AgentClient): Promise<void> {
  let servers = (await client.request<McpServersResult>("agent/mcp/list", {})).servers;
  for (;;) {
    if (servers.length === 0) {
      void vscode.window.showInformationMessage("agentls: no MCP servers are configured (the mcp key of agentls.json).");
      return;
    }
    const picked = await vscode.window.showQuickPick(
      servers.map((s) => ({ label: `${ICONS[s.status]} ${s.name}`, description: s.type, detail: describe(s), server: s })),
      { title: "agentls: MCP Servers", placeHolder: "A server to restart, enable or disable" },
    );
    if (picked === undefined) return;
    const s = picked.server;
    const action = await vscode.window.showQuickPick(actionsFor(s), { title: `MCP server ${s.name}: ${describe(s)}` });
    if (action === undefined) continue;
    let result: McpServersResult;
    try {
      result = await client.request<McpServersResult>("agent/mcp/set", { name: s.name, action: WIRE[action] });
    } catch (err) {
      void vscode.window.showErrorMessage(`agentls: ${action} ${s.name}: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    servers = result.servers;
    if (result.login) {
      // The server asked VS Code to open it (window/showDocument); when it could not, open it here.
      if (!result.login.opened) await vscode.env.openExternal(vscode.Uri.parse(result.login.url, true));
      void vscode.window.showInformationMessage(
        `agentls: log in to ${s.name} in your browser; the server starts once you have (${result.login.url})`,
      );
      return;
    }
    const now = servers.find((x) => x.name === s.name);
    if (now !== undefined) void vscode.window.showInformationMessage(`agentls: MCP server ${s.name} ${describe(now)}`);
  }
}
