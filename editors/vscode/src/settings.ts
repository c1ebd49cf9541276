// The extension's settings, read from the `agentls.*` configuration that package.json declares.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { keyVariable } from "./keys";
import type { JsonObject } from "../shared/protocol";
import { trace } from "./trace";
import { hostChoice, type HostSetting } from "./client/init_options";

export const SECTION = "agentls";

export interface Settings {
  serverPath: string;
  serverArgs: string[];
  /** What goes to the server as `initializationOptions.config` (same keys as agentls.json). */
  config: JsonObject;
  /** `initializationOptions.nextEdits`: next edits as inline suggestions and code actions. */
  nextEdits: boolean;
  /** `initializationOptions.host`: run the agent in the shared agent host; undefined when not set. */
  host?: HostSetting;
  /** `agentls.hostTokenFile` for a remote host: the server's `AGENTLS_HOST_TOKEN_FILE` ("" when unset). */
  hostTokenFile: string;
  /** Why `agentls.host` could not be sent as set (shown to the user when the server starts). */
  hostProblem?: string;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The settings, with a reference to each API key the user entered in the first-run view (held in
 * VS Code's SecretStorage, never in settings.json) as `provider.<id>.options.api_key: "{env:…}"`:
 * the key itself is in the server process's environment (`keyEnvironment`), never in a message.
 */
export function readSettings(keys: Readonly<Record<string, string>> = {}): Settings {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const config: JsonObject = {};
  // `agentls.config` is the escape hatch for any key of agentls.json; the named settings win over it.
  const extra = cfg.get<unknown>("config");
  if (isObject(extra)) Object.assign(config, extra);
  const model = cfg.get<string>("model", "");
  if (model) config.model = model;
  const smallModel = cfg.get<string>("smallModel", "");
  if (smallModel) config.small_model = smallModel;
  const agent = cfg.get<string>("defaultAgent", "");
  if (agent) config.default_agent = agent;
  const permission = cfg.get<unknown>("permission");
  if (isObject(permission) && Object.keys(permission).length > 0) config.permission = permission;
  withKeys(config, keys);
  return {
    serverPath: cfg.get<string>("server.path", ""),
    serverArgs: cfg.get<string[]>("server.args", ["serve"]),
    config,
    nextEdits: cfg.get<boolean>("nextEdits", false),
    ...hostSettings(cfg),
  };
}

/** `agentls.host` when the user set it anywhere (an unset one leaves the server's default), with
 * `agentls.hostAddress` and `agentls.hostTokenFile` for `remote`. */
function hostSettings(cfg: vscode.WorkspaceConfiguration): Pick<Settings, "host" | "hostTokenFile" | "hostProblem"> {
  const set = cfg.inspect<string>("host");
  const value = set?.workspaceFolderValue ?? set?.workspaceValue ?? set?.globalValue;
  const { host, problem } = hostChoice(value, cfg.get<string>("hostAddress", ""));
  if (problem !== undefined) trace("badHostSetting", { value: value ?? null, problem });
  const remote = host?.startsWith("tcp://") ?? false;
  const tokenFile = remote ? expandHome(cfg.get<string>("hostTokenFile", "").trim()) : "";
  return { host, hostTokenFile: tokenFile, ...(problem !== undefined ? { hostProblem: problem } : {}) };
}

function expandHome(file: string): string {
  return file === "~" || file.startsWith("~/") ? path.join(os.homedir(), file.slice(1)) : file;
}

/** Name each key's variable under `provider.<id>.options.api_key`, keeping what the settings say of that provider. */
function withKeys(config: JsonObject, keys: Readonly<Record<string, string>>): void {
  const entries = Object.entries(keys).filter(([, key]) => key !== "");
  if (entries.length === 0) return;
  const providers: JsonObject = isObject(config.provider) ? { ...config.provider } : {};
  for (const [id] of entries) {
    const provider: JsonObject = isObject(providers[id]) ? { ...(providers[id] as JsonObject) } : {};
    const options: JsonObject = isObject(provider.options) ? { ...(provider.options as JsonObject) } : {};
    // A key written in the settings themselves wins: the user put it there on purpose.
    if (options.api_key === undefined) options.api_key = `{env:${keyVariable(id)}}`;
    provider.options = options;
    providers[id] = provider;
  }
  config.provider = providers;
}

/** Settings of the server process itself: a change needs a new process. */
export function affectsProcess(event: vscode.ConfigurationChangeEvent): boolean {
  // nextEdits: the server announces inline completions (or not) in its initialize answer; host: the
  // server attaches (or not) when it opens the agent.
  return ["server", "nextEdits", "host", "hostAddress", "hostTokenFile"].some((key) => event.affectsConfiguration(`${SECTION}.${key}`));
}

/** Settings that make up the agent's config: the running server applies a change from the next turn. */
export function affectsConfig(event: vscode.ConfigurationChangeEvent): boolean {
  return ["config", "model", "smallModel", "defaultAgent", "permission"].some((key) => event.affectsConfiguration(`${SECTION}.${key}`));
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch (err) {
    trace("notExecutable", { file, error: String(err) });
    return false;
  }
}

/** Where the server is: the setting (checked before it is started), or one found by name. */
export interface ServerLocation {
  command: string;
  fromSetting: boolean;
}

/**
 * The agentls executable: the setting, else the workspace's `.venv` (only in a trusted workspace: a
 * workspace must not choose the program the extension runs), else PATH; undefined when none exists.
 * A relative setting is resolved against the first workspace folder; whether it is agentls at all is
 * for `checkServerPath` to say. (In an untrusted workspace VS Code itself ignores the workspace's
 * value of the restricted `agentls.server.*` settings.)
 */
export function findServer(settings: Settings, folders: readonly string[], envPath: string, trusted = true): ServerLocation | undefined {
  const bin = process.platform === "win32" ? "agentls.exe" : "agentls";
  if (settings.serverPath) {
    const resolved =
      path.isAbsolute(settings.serverPath) || folders.length === 0
        ? settings.serverPath
        : path.join(folders[0], settings.serverPath);
    return { command: resolved, fromSetting: true };
  }
  for (const folder of trusted ? folders : []) {
    const scripts = process.platform === "win32" ? "Scripts" : "bin";
    const candidate = path.join(folder, ".venv", scripts, bin);
    if (executable(candidate)) return { command: candidate, fromSetting: false };
  }
  for (const dir of envPath.split(path.delimiter)) {
    if (dir && executable(path.join(dir, bin))) return { command: path.join(dir, bin), fromSetting: false };
  }
  return undefined;
}
