// The session's background work as the view shows it: the sub-agents its `task` calls started in the
// background and its background shells, from `agent/background/list` in the snapshot and the
// `background.*` events (docs/protocol.md). No DOM: unit-tested with node's test runner.
import type { AgentEvent, BackgroundAgent, BackgroundShell } from "../shared/protocol.ts";

export interface Background {
  agents: BackgroundAgent[];
  shells: BackgroundShell[];
}

export function emptyBackground(): Background {
  return { agents: [], shells: [] };
}

function upsert<T>(items: T[], item: T, same: (a: T) => boolean): T[] {
  const at = items.findIndex(same);
  if (at < 0) return [...items, item];
  return items.map((x, i) => (i === at ? item : x));
}

/** Apply a `background.*` event of the session `sessionID`; undefined when it is not one of those. */
export function applyBackgroundEvent(bg: Background, event: AgentEvent, sessionID: string): Background | undefined {
  switch (event.type) {
    case "background.agent.updated":
    case "background.agent.ended": {
      if (event.properties.sessionID !== sessionID) return bg;
      const agent = event.properties.agent;
      return { ...bg, agents: upsert(bg.agents, agent, (a) => a.sessionID === agent.sessionID) };
    }
    case "background.shell.updated": {
      if (event.properties.sessionID !== sessionID) return bg;
      const shell = event.properties.shell;
      return { ...bg, shells: upsert(bg.shells, shell, (s) => s.id === shell.id) };
    }
    default:
      return undefined;
  }
}

/** How many run now. */
export function running(bg: Background): { agents: number; shells: number } {
  return { agents: bg.agents.filter((a) => a.status === "running").length, shells: bg.shells.filter((s) => s.status === "running").length };
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** The pill's text: what runs, else what ran ("2 background agents · 1 shell running"). */
export function pillText(bg: Background): string {
  const now = running(bg);
  const parts: string[] = [];
  if (now.agents > 0) parts.push(plural(now.agents, "background agent", "background agents"));
  if (now.shells > 0) parts.push(plural(now.shells, "shell", "shells"));
  if (parts.length > 0) return `${parts.join(" · ")} running`;
  return `Background: ${plural(bg.agents.length + bg.shells.length, "item", "items")} ended`;
}

/** "45s", "3m 07s", "1h 02m". */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

function tokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k tokens` : `${n} tokens`;
}

/** A sub-agent's state in one line: status, step, tool, tokens, time. */
export function agentState(a: BackgroundAgent, now: number): string {
  const time = elapsed((a.ended ?? now) - a.started);
  if (a.status === "running") {
    const doing = a.tool ? `running ${a.tool}` : "thinking";
    return `step ${a.step + 1}, ${doing} · ${tokens(a.tokens)} · ${time}`;
  }
  const how = a.status === "failed" ? `failed${a.error ? `: ${a.error}` : ""}` : a.status;
  return `${how} · ${plural(a.step, "step", "steps")} · ${tokens(a.tokens)} · ${time}`;
}

/** A shell's state in one line. */
export function shellState(s: BackgroundShell, now: number): string {
  const age = elapsed(now - s.started);
  if (s.status === "running") return `running · ${age}`;
  return s.status === "exited" ? `exited with code ${s.exitCode ?? "?"} · started ${age} ago` : `stopped · started ${age} ago`;
}
