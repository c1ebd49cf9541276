// Checks the agentls.server.path setting before the language client starts it: a wrong path is named
// in one message with the real cause. Started blindly, another executable failed the handshake and
// the client restarted it five times, each with a notification, and never said why.
import { execFile } from "node:child_process";
import * as fs from "node:fs";

const PROBE_MS = 10_000;
const HEAD_BYTES = 4096;

/** What `--version` printed (or how it failed), trimmed to one short line. */
function shorten(text: string, limit = 160): string {
  const line = text.trim().split(/\r?\n/).find((l) => l.trim() !== "") ?? "";
  return line.length <= limit ? line : `${line.slice(0, limit - 1)}…`;
}

function probe(file: string): Promise<{ output: string; failure?: string }> {
  return new Promise((resolve) => {
    execFile(file, ["--version"], { timeout: PROBE_MS, windowsHide: true }, (err, stdout, stderr) => {
      const output = `${stdout}\n${stderr}`;
      if (err === null) return resolve({ output });
      const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
      if (e.killed) return resolve({ output, failure: `it did not answer \`--version\` within ${PROBE_MS / 1000} s` });
      if (typeof e.code === "string") return resolve({ output, failure: `it could not be run (${e.code})` });
      return resolve({ output });
    });
  });
}

/**
 * Undefined when `file` can be the agentls server; else the message that says what is wrong with the
 * setting. A pip-installed `agentls` (or a wrapper script) names agentls in its first lines and is
 * taken as it is; anything else must say `agentls …` to `--version`.
 */
export async function checkServerPath(file: string): Promise<string | undefined> {
  const named = `agentls.server.path points to ${file}`;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return `${named}, which does not exist.`;
  }
  if (!stat.isFile()) return `${named}, which is not a file.`;
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    return `${named}, which is not executable.`;
  }
  const head = Buffer.alloc(HEAD_BYTES);
  let read = 0;
  try {
    const fd = fs.openSync(file, "r");
    read = fs.readSync(fd, head, 0, HEAD_BYTES, 0);
    fs.closeSync(fd);
  } catch {
    read = 0;
  }
  const text = head.subarray(0, read).toString("latin1");
  if (text.startsWith("#!") && /\bagentls\b/.test(text)) return undefined;
  const { output, failure } = await probe(file);
  if (/^agentls\b/m.test(output.trim())) return undefined;
  if (failure !== undefined) return `${named}, which is not agentls (${failure}).`;
  const said = shorten(output);
  return said
    ? `${named}, which is not agentls (\`--version\` printed "${said}").`
    : `${named}, which is not agentls (\`--version\` printed nothing).`;
}
