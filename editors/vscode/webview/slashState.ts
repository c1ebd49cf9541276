// The `/` menu's data, with no DOM (unit-tested): the commands the server lists (`agent/commands`) and
// those the view runs itself, filtered by what the user typed after the `/`.

/**
 * A command of the menu: the server's (`agent/commands`: built in, the user's, or an MCP server's
 * prompt) or one the view runs itself (`kind: "client"`).
 */
export interface SlashCommand {
  name: string;
  description: string;
  kind: "builtin" | "user" | "mcp" | "client";
  hint: string;
  source?: string;
}

/**
 * Built-ins the view runs itself (they change what the view shows or picks, not the session's
 * history): a new session, the model and agent pickers, the mode and effort of the session, export.
 */
export const CLIENT_COMMANDS: SlashCommand[] = [
  { name: "new", description: "Start a new session", kind: "client", hint: "" },
  { name: "model", description: "Pick the model of the next prompts", kind: "client", hint: "[provider/model]" },
  { name: "agent", description: "Pick the agent of the next prompts", kind: "client", hint: "[agent]" },
  { name: "mode", description: "Ask before edits, auto-accept them, or plan (read-only)", kind: "client", hint: "[ask|auto|plan]" },
  { name: "effort", description: "How hard the model thinks", kind: "client", hint: "[level]" },
  { name: "export", description: "Open the session as Markdown in an editor", kind: "client", hint: "" },
];

/**
 * The menu's list: the project's and the user's own commands first (they are what this project
 * added, and the menu shows its first rows: below thirteen built-ins they were out of sight), then
 * the MCP servers' prompts (`/mcp__server__prompt`), then the built-ins sorted; the view's own
 * built-ins win over a server command of the same name.
 */
export function mergeCommands(server: SlashCommand[]): SlashCommand[] {
  const own = new Set(CLIENT_COMMANDS.map((c) => c.name));
  const builtins = server.filter((c) => c.kind === "builtin" && !own.has(c.name));
  const users = server.filter((c) => c.kind === "user" && !own.has(c.name));
  const prompts = server.filter((c) => c.kind === "mcp");
  return [...users, ...prompts].concat([...CLIENT_COMMANDS, ...builtins].sort((a, b) => a.name.localeCompare(b.name)));
}

/** The commands whose name starts with `typed` first, then those that contain it (name or description). */
export function filterCommands(commands: SlashCommand[], typed: string): SlashCommand[] {
  const t = typed.toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(t));
  const contains = commands.filter((c) => !starts.includes(c) && (c.name.toLowerCase().includes(t) || c.description.toLowerCase().includes(t)));
  return [...starts, ...contains];
}

/** What is typed at the start of the prompt up to the caret, when it is a command name being typed. */
export function typedCommand(text: string, caret: number): string | undefined {
  const m = /^\/([^\s/]*)$/.exec(text.slice(0, caret));
  return m === null ? undefined : m[1];
}

/** `/name arguments` as a command to run, when `name` is one of `commands`. */
export function parseCommand(text: string, commands: SlashCommand[]): { command: SlashCommand; arguments: string } | undefined {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (m === null) return undefined;
  const command = commands.find((c) => c.name === m[1]);
  return command === undefined ? undefined : { command, arguments: (m[2] ?? "").trim() };
}
