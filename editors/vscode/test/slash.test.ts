// The `/` menu's data (webview/slashState.ts): merging, filtering, what is being typed, running typed text.
import assert from "node:assert/strict";
import { test } from "node:test";
import { filterCommands, mergeCommands, parseCommand, type SlashCommand, typedCommand } from "../webview/slashState.ts";

const server: SlashCommand[] = [
  { name: "compact", description: "Summarise the conversation", kind: "builtin", hint: "" },
  { name: "undo", description: "Revert the last turn", kind: "builtin", hint: "" },
  { name: "model", description: "the server's /model", kind: "builtin", hint: "" },
  { name: "review", description: "Review a file", kind: "user", hint: "<file>" },
  { name: "mcp__docs__explain", description: "Explain a symbol", kind: "mcp", hint: "<symbol> [style]", source: "mcp:docs" },
];

test("the project's own commands come first, then MCP prompts, then the built-ins (the view's own winning a shared name) sorted", () => {
  const names = mergeCommands(server).map((c) => `${c.kind}:${c.name}`);
  assert.deepEqual(names, ["user:review", "mcp:mcp__docs__explain", "client:agent", "builtin:compact", "client:effort", "client:export", "client:mode", "client:model", "client:new", "builtin:undo"]);
});

test("names that start with what is typed come first, then names or descriptions that contain it", () => {
  const all = mergeCommands(server);
  assert.deepEqual(filterCommands(all, "rev").map((c) => c.name), ["review", "undo"]); // undo: "Revert…"
  assert.deepEqual(filterCommands(all, "").length, all.length);
  assert.deepEqual(filterCommands(all, "zzz"), []);
});

test("the menu is open only while a name is typed at the very start of the prompt", () => {
  assert.equal(typedCommand("/", 1), "");
  assert.equal(typedCommand("/rev", 4), "rev");
  assert.equal(typedCommand("/review calc.py", 15), undefined); // arguments now
  assert.equal(typedCommand("see /rev", 8), undefined);
  assert.equal(typedCommand("/usr/bin", 8), undefined); // a path, not a command
  assert.equal(typedCommand("/rev\nmore", 4), "rev"); // the caret is what counts
});

test("typed `/name arguments` runs only a known command; anything else is a prompt", () => {
  const all = mergeCommands(server);
  assert.deepEqual(parseCommand("/review calc.py  focus", all), { command: all.find((c) => c.name === "review"), arguments: "calc.py  focus" });
  assert.equal(parseCommand("/compact", all)?.arguments, "");
  assert.equal(parseCommand("/mcp__docs__explain add style=long", all)?.arguments, "add style=long");
  assert.equal(parseCommand("/etc/hosts is odd", all), undefined);
  assert.equal(parseCommand("please /compact", all), undefined);
});
