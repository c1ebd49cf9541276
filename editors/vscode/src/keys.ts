// API keys the user enters in the first-run view: kept in VS Code's SecretStorage (the OS keychain),
// never in settings.json, and handed to the server in the config layer the extension sends
// (`provider.<id>.options.api_key`), which the server holds in memory only.
import type * as vscode from "vscode";

const INDEX = "agentls.keyProviders"; // which providers have a stored key (ids only, no secrets)
const secretName = (provider: string): string => `agentls.apiKey.${provider}`;

export class ProviderKeys {
  private keys: Record<string, string> = {};

  constructor(private readonly context: vscode.ExtensionContext) {}

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
