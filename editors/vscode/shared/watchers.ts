// Who else shows a session, as the chat says it (the server's `session.watchers`: the other front
// ends of the agent host that show it, one name per front end). Shared by the extension and its webview.

/** "Neovim, Zed" for the others' names; one name twice or more: "Neovim ×2". */
export function watcherNames(clients: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of clients) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(", ");
}

/** The chat's line for them: "also open in Neovim, Zed" (empty when no one else shows it). */
export function alsoOpenIn(clients: readonly string[]): string {
  return clients.length === 0 ? "" : `also open in ${watcherNames(clients)}`;
}
