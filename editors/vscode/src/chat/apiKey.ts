// "agentls: Set API Key…": a provider's API key entered or replaced at any time, not only in the
// first-run setup (which shows only while no model is set). Kept where the setup keeps it: VS Code's
// SecretStorage, handed to the server in its environment (keys.ts), so the key never travels in an
// LSP message a verbose trace would print; the server restarts to take it.
import * as vscode from "vscode";
import type { AgentClient } from "../client/server";
import type { ProviderKeys } from "../keys";
import { trace } from "../trace";
import type { ProviderInfo } from "./messages";

interface ProviderPick extends vscode.QuickPickItem {
  id: string;
}

/** The providers to offer, the current model's first, then those configured, then the rest by name. */
export function providerPicks(providers: readonly ProviderInfo[], model: string): ProviderPick[] {
  const current = model.includes("/") ? model.slice(0, model.indexOf("/")) : "";
  const rank = (p: ProviderInfo): number => (p.id === current ? 0 : p.configured ? 1 : 2);
  return [...providers]
    .sort((a, b) => rank(a) - rank(b) || a.id.localeCompare(b.id))
    .map((p) => ({
      id: p.id,
      label: p.id,
      description: [p.id === current ? "the current model's" : "", p.hasKey ? "a key is set" : p.keyEnv ? `no key yet (${p.keyEnv})` : ""].filter(Boolean).join(" · "),
    }));
}

/** Ask for the provider (unless given) and its key, store it, restart the server; false when dismissed. */
export async function setApiKey(client: AgentClient, keys: ProviderKeys, provider?: string): Promise<boolean> {
  let id = provider;
  if (id === undefined) {
    let providers: ProviderInfo[] = [];
    try {
      providers = (await client.request<{ providers: ProviderInfo[] }>("agent/providers", {})).providers;
    } catch (err) {
      trace("apiKeyProvidersFailed", { error: String(err) });
    }
    const model = vscode.workspace.getConfiguration("agentls").get<string>("model", "");
    const picked = await vscode.window.showQuickPick(providerPicks(providers, model), {
      title: "agentls: Set API Key — provider",
      placeHolder: providers.length > 0 ? "The provider whose key to set" : "The server did not list its providers (see the agentls output)",
      ignoreFocusOut: true,
    });
    id = picked?.id;
  }
  if (id === undefined) return false;
  const key = await vscode.window.showInputBox({
    title: `agentls: Set API Key — ${id}`,
    prompt: `The API key for ${id}: kept in VS Code's secret storage, never in settings.json`,
    password: true,
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() === "" ? "Paste the key (or press Escape to leave it as it is)." : undefined),
  });
  if (key === undefined || key.trim() === "") return false;
  await keys.set(id, key.trim());
  trace("apiKeySet", { provider: id });
  await client.restart();
  void vscode.window.showInformationMessage(`agentls: the ${id} key is set; the server now uses it.`);
  return true;
}
