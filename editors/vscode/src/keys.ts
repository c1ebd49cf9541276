// API keys the user enters in the first-run view: kept in VS Code's SecretStorage (the OS keychain),
// never in settings.json, and handed to the server process in its environment only. The config
// layer the extension sends names the variable (`provider.<id>.options.api_key: "{env:…}"`), so the
// key never travels in an LSP message, where the client's verbose trace would print it.
import type * as vscode from "vscode";

const INDEX = "agentls.keyProviders"; // which providers have a stored key (ids only, no secrets)
const secretName = (provider: string): string => `agentls.apiKey.${provider}`;

/** The environment variable that carries a provider's key to the server, e.g. AGENTLS_KEY_OPENAI. */
export function keyVariable(provider: string): string {
  return `AGENTLS_KEY_${provider.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

/** The server process's extra environment: one variable per stored key. */
export function keyEnvironment(keys: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [id, key] of Object.entries(keys)) if (key !== "") env[keyVariable(id)] = key;
  return env;
}

export class ProviderKeys {
  private keys: Record<string, string> = {};
  private readonly context: vscode.ExtensionContext;

  constructor(context: vscode.ExtensionContext) {
    this.context = context;
  }

  /** Read the stored keys (once, before the server starts: its first config must carry them). */
  async load(): Promise<void> {
    const ids = this.context.globalState.get<string[]>(INDEX, []);
    const loaded: Record<string, string> = {};
    for (const id of ids) {
      const key = await this.context.secrets.get(secretName(id));
      if (key) loaded[id] = key;
    }
    this.keys = loaded;
  }

  /** The keys by provider id, for the config layer. */
  get all(): Readonly<Record<string, string>> {
    return this.keys;
  }

  async set(provider: string, key: string): Promise<void> {
    await this.context.secrets.store(secretName(provider), key);
    this.keys = { ...this.keys, [provider]: key };
    const ids = new Set(this.context.globalState.get<string[]>(INDEX, []));
    ids.add(provider);
    await this.context.globalState.update(INDEX, [...ids].sort());
  }
}
