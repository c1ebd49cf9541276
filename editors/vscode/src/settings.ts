// The extension's settings, read from the `agentls.*` configuration that package.json declares.
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { JsonObject } from "./protocol";
import { trace } from "./trace";

export const SECTION = "agentls";

export interface Settings {
  serverPath: string;
  serverArgs: string[];
  /** What goes to the server as `initializationOptions.config` (same keys as agentls.json). */
  config: JsonObject;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function readSettings(): Settings {
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
  return {
    serverPath: cfg.get<string>("server.path", ""),
    serverArgs: cfg.get<string[]>("server.args", ["serve"]),
    config,
  };
}

/** Settings of the server process itself: a change needs a new process. */
export function affectsProcess(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(`${SECTION}.server`);
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

/**
 * The agentls executable: the setting, else the workspace's `.venv`, else PATH; undefined when none
 * exists. A relative setting is resolved against the first workspace folder.
 */
export function findServer(settings: Settings, folders: readonly string[], envPath: string): string | undefined {
  const bin = process.platform === "win32" ? "agentls.exe" : "agentls";
  if (settings.serverPath) {
    const resolved =
      path.isAbsolute(settings.serverPath) || folders.length === 0
        ? settings.serverPath
        : path.join(folders[0], settings.serverPath);
    return executable(resolved) ? resolved : undefined;
  }
  for (const folder of folders) {
    const scripts = process.platform === "win32" ? "Scripts" : "bin";
    const candidate = path.join(folder, ".venv", scripts, bin);
    if (executable(candidate)) return candidate;
  }
  for (const dir of envPath.split(path.delimiter)) {
    if (dir && executable(path.join(dir, bin))) return path.join(dir, bin);
  }
  return undefined;
}
