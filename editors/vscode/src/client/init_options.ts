// What the extension sends the server as `initializationOptions` (docs/protocol.md), built from the
// settings alone so the test can check it without VS Code.
import type { JsonObject } from "../../shared/protocol";

/** `agentls.host`: where the agent runs (docs/host.md); undefined when the user left it unset.
 * `tcp://HOST:PORT`: `remote` with `agentls.hostAddress`. */
export type HostSetting = "never" | "auto" | "attach" | `tcp://${string}`;

/** What `agentls.host` (as set, or undefined) and `agentls.hostAddress` say to send, or the problem
 * to show the user when they cannot be sent (the server then keeps its own default). */
export function hostChoice(value: string | undefined, address: string): { host?: HostSetting; problem?: string } {
  if (value === undefined) return {};
  if (value === "never" || value === "auto" || value === "attach") return { host: value };
  if (value !== "remote") return { problem: `agentls.host: "${value}" is not one of never, auto, attach, remote; the server's default is used (AGENTLS_HOST, else in its own process).` };
  const trimmed = address.trim();
  if (!/^\S+:[0-9]{1,5}$/.test(trimmed)) {
    const said = trimmed === "" ? "is empty" : `("${trimmed}") is not HOST:PORT`;
    return { problem: `agentls.host is "remote" but agentls.hostAddress ${said}; the server's default is used (AGENTLS_HOST, else in its own process).` };
  }
  return { host: `tcp://${trimmed}` };
}

export interface InitSettings {
  config: JsonObject;
  nextEdits: boolean;
  host?: HostSetting;
}

/**
 * `config` as the agent's config layer; `untrusted` when VS Code has not trusted the workspace;
 * `nextEdits` only when on (off, the server announces no inline completions); `host` only when the
 * user set it, so an unset setting leaves the server's own default (`AGENTLS_HOST`, else `never`).
 */
export function initializationOptions(settings: InitSettings, trusted: boolean): JsonObject {
  return {
    config: settings.config,
    untrusted: !trusted,
    ...(settings.nextEdits ? { nextEdits: true } : {}),
    ...(settings.host !== undefined ? { host: settings.host } : {}),
  };
}
