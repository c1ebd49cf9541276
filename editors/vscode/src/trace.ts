// An optional JSON-lines trace of what the extension did (`AGENTLS_VSCODE_TRACE=/path`): the end-to-end
// test and the benchmark read it to know when the server was initialized and what an edit left behind.
import * as fs from "node:fs";

const file = process.env.AGENTLS_VSCODE_TRACE;

export function trace(event: string, data: Record<string, unknown> = {}): void {
  if (!file) return;
  const line = JSON.stringify({ event, t: Date.now(), ...data }) + "\n";
  try {
    fs.appendFileSync(file, line);
  } catch {
    // A trace that cannot be written must never break the editor.
  }
}
