// The user's Python for the managed server environment: `python.defaultInterpreterPath` (the Python
// extension's setting, when set), else `python3` / `python` on PATH; it must be 3.11 or newer.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

export const FLOOR: readonly [number, number] = [3, 11];
const PROBE_MS = 15_000;

export interface Python {
  command: string;
  version: string;
}

/** A Python that can hold the server, or the message that says why there is none. */
export type PythonFound = { python: Python; problem?: undefined } | { python?: undefined; problem: string };

function onPath(name: string, envPath: string): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The version `command` reports (`3.12.4`), or undefined when it does not run as Python. */
function version(command: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const code = "import sys; print('%d.%d.%d' % sys.version_info[:3])";
    execFile(command, ["-c", code], { timeout: PROBE_MS, windowsHide: true }, (err, stdout) => {
      const text = String(stdout).trim();
      resolve(err === null && /^\d+\.\d+\.\d+$/.test(text) ? text : undefined);
    });
  });
}

export function newEnough(v: string): boolean {
  const [major, minor] = v.split(".").map(Number);
  return major > FLOOR[0] || (major === FLOOR[0] && minor >= FLOOR[1]);
}

/**
 * The first candidate that runs and is new enough. `configured` (the Python extension's interpreter
 * setting) is the only candidate when set: the user chose it, so a wrong one is named, not skipped.
 */
export async function findPython(configured: string, envPath: string): Promise<PythonFound> {
  const floor = FLOOR.join(".");
  const candidates = configured ? [configured] : ["python3", "python"].map((n) => onPath(n, envPath)).filter((c) => c !== undefined);
  if (candidates.length === 0) {
    return { problem: `no Python was found (looked for python3 and python on PATH). Install Python ${floor} or newer, or set python.defaultInterpreterPath.` };
  }
  const old: string[] = [];
  for (const command of candidates) {
    const v = await version(command);
    if (v === undefined) {
      if (configured) return { problem: `python.defaultInterpreterPath points to ${command}, which does not run as Python.` };
      continue;
    }
    if (newEnough(v)) return { python: { command, version: v } };
    old.push(`${command} is Python ${v}`);
  }
  if (old.length > 0) return { problem: `agentls needs Python ${floor} or newer, and ${old.join(", ")}. Install a newer Python, or set python.defaultInterpreterPath to one.` };
  return { problem: `no working Python was found on PATH. Install Python ${floor} or newer, or set python.defaultInterpreterPath.` };
}
