// "agentls: MCP Servers" (docs/protocol.md, agent/mcp/list and agent/mcp/set): a quick pick of the
// configured MCP servers — running with what each offers, failed with its last error, disabled —
// and, for the one picked, Restart / Disable / Enable. Enable and disable go to the user's config.
import * as vscode from "vscode";
import type { McpServerInfo, McpServersResult } from "../../shared/protocol";
import type { AgentClient } from "../client/server";

const ICONS: Record<McpServerInfo["status"], string> = { running: "$(pass)", failed: "$(error)", disabled: "$(circle-slash)" };

/** How a server reads in the pick: its state, and what it offers or why it failed. */
export function describe(s: McpServerInfo): string {
  if (s.status === "running") return `running · ${s.tools} tools, ${s.resources} resources, ${s.prompts} prompts`;
  if (s.status === "failed") return `failed: ${s.error ?? "no reason given"}`;
  return "disabled";
}

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
    const actions = s.enabled ? ["Restart", "Disable"] : ["Enable"];
    const action = await vscode.window.showQuickPick(actions, { title: `MCP server ${s.name}: ${describe(s)}` });
    if (action === undefined) continue;
    try {
      servers = (await client.request<McpServersResult>("agent/mcp/set", { name: s.name, action: action.toLowerCase() })).servers;
    } catch (err) {
      void vscode.window.showErrorMessage(`agentls: ${action} ${s.name}: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    const now = servers.find((x) => x.name === s.name);
    if (now !== undefined) void vscode.window.showInformationMessage(`agentls: MCP server ${s.name} ${describe(now)}`);
  }
}
