// The first run: with no model configured the view offers the providers the server knows, a model
// and an API key. The key goes to SecretStorage (never settings.json) and to the server's environment;
// the model becomes the user's `agentls.model` setting, which the running server applies at once.
import * as vscode from "vscode";
import type { AgentClient } from "../client/server";
import type { ProviderKeys } from "../keys";
import type { FirstRunInfo, ProviderInfo } from "./messages";

export const noModelMessage =
  "No model is set, so the prompt was not sent (it is still in the box): pick a provider and a model in the setup below, or set the agentls.model setting (as provider/model, e.g. anthropic/claude-sonnet-4-5).";

/** What the first-run setup shows: the server's providers (none when it cannot say). */
export async function firstRunInfo(client: AgentClient): Promise<FirstRunInfo> {
  try {
    const { providers } = await client.request<{ providers: ProviderInfo[] }>("agent/providers", {});
    return { providers };
  } catch (err) {
    return { providers: [], error: `the server did not list its providers: ${(err as Error).message ?? String(err)}` };
  }
}

/**
 * The user's choice from the first-run setup: the key stored, then the model set. True when a key was
 * stored: the server reads keys from its environment, so it must be started again to see it.
 */
export async function applySetup(keys: ProviderKeys, provider: string, model: string, apiKey: string | undefined): Promise<boolean> {
  const id = provider.trim();
  const name = model.trim().replace(new RegExp(`^${id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/`), "");
  if (!id || !name) throw new Error("pick a provider and type or pick a model first.");
  const key = apiKey?.trim() ?? "";
  if (key) await keys.set(id, key);
  await vscode.workspace.getConfiguration("agentls").update("model", `${id}/${name}`, vscode.ConfigurationTarget.Global);
  return key !== "";
}
