// What the extension sends the server as `initializationOptions` (docs/protocol.md), built from the
// settings alone so the test can check it without VS Code.
import type { JsonObject } from "../../shared/protocol";

/** `agentls.host`: where the agent runs (docs/host.md); undefined when the user left it unset. */
export type HostSetting = "never" | "auto" | "attach";

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
