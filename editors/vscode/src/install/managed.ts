// The server environment the extension manages: a venv in its global storage holding the agentls wheel
// the .vsix carries, stamped with the extension version that installed it (a newer extension
// reinstalls). Dependencies come from the user's pip configuration (index, find-links), as with any
// `pip install`; the wheel itself never comes from the network.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { trace } from "../trace";
import type { Python } from "./python";

const STAMP = "installed.json";
const TAIL = 1500;

interface Stamp {
  extension: string;
  wheel: string;
}

export class ManagedServer {
  readonly venv: string;

  /** `storage`: the extension's global storage folder; `extensionDir`: where the .vsix was unpacked. */
  constructor(
    private readonly storage: string,
    private readonly extensionDir: string,
    private readonly extensionVersion: string,
    private readonly log: (line: string) => void,
  ) {
    this.venv = path.join(storage, "server", "venv");
  }

  /** The wheel inside the .vsix (`server/agentls-*.whl`), or undefined in a build without one. */
  bundledWheel(): string | undefined {
    const dir = path.join(this.extensionDir, "server");
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return undefined;
    }
    const wheel = names.filter((n) => /^agentls-.+\.whl$/.test(n)).sort().at(-1);
    return wheel === undefined ? undefined : path.join(dir, wheel);
  }

  get executable(): string {
    return process.platform === "win32" ? path.join(this.venv, "Scripts", "agentls.exe") : path.join(this.venv, "bin", "agentls");
  }

  private stamp(): Stamp | undefined {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.storage, "server", STAMP), "utf8")) as Stamp;
    } catch {
      return undefined;
    }
  }

  /** "current": installed by this extension version; "stale": by another one; "none": not installed. */
  state(): "current" | "stale" | "none" {
    const stamp = this.stamp();
    if (stamp === undefined || !fs.existsSync(this.executable)) return "none";
    return stamp.extension === this.extensionVersion ? "current" : "stale";
  }

  private get python(): string {
    return process.platform === "win32" ? path.join(this.venv, "Scripts", "python.exe") : path.join(this.venv, "bin", "python");
  }

  private wheel(): string {
    const wheel = this.bundledWheel();
    if (wheel === undefined) throw new Error("this build of the extension carries no agentls wheel");
    return wheel;
  }

  /** A new venv made by `python`, with the bundled wheel installed; the stamp is written last. */
  async install(python: Python): Promise<void> {
    const wheel = this.wheel();
    const server = path.join(this.storage, "server");
    fs.rmSync(path.join(server, STAMP), { force: true });
    fs.rmSync(this.venv, { recursive: true, force: true });
    fs.mkdirSync(server, { recursive: true });
    trace("managedInstall", { python: python.command, version: python.version, wheel: path.basename(wheel) });
    await this.run(python.command, ["-m", "venv", this.venv], "creating the environment");
    await this.pip([wheel], "installing agentls");
    this.stampIt(wheel);
  }

  /**
   * The bundled wheel over the one a former extension version installed, in the same venv: agentls
   * itself always (its version number may be the same), its dependencies only where they changed.
   */
  async update(): Promise<void> {
    const wheel = this.wheel();
    fs.rmSync(path.join(this.storage, "server", STAMP), { force: true });
    trace("managedUpdate", { wheel: path.basename(wheel) });
    await this.pip(["--force-reinstall", "--no-deps", wheel], "updating agentls");
    await this.pip([wheel], "updating agentls' dependencies");
    this.stampIt(wheel);
  }

  private pip(args: string[], what: string): Promise<void> {
    return this.run(this.python, ["-m", "pip", "install", "--disable-pip-version-check", "--no-input", ...args], what);
  }

  private stampIt(wheel: string): void {
    const stamp: Stamp = { extension: this.extensionVersion, wheel: path.basename(wheel) };
    fs.writeFileSync(path.join(this.storage, "server", STAMP), JSON.stringify(stamp));
    trace("managedInstalled", { executable: this.executable, ...stamp });
  }

  private run(command: string, args: string[], what: string): Promise<void> {
    this.log(`$ ${command} ${args.join(" ")}`);
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { windowsHide: true, stdio: ["ignore", "pipe", "pipe"] });
      let head = "";
      let tail = "";
      const keep = (chunk: Buffer): void => {
        const text = chunk.toString();
        this.log(text.trimEnd());
        if (head.length < TAIL) head += text.slice(0, TAIL - head.length);
        tail = (tail + text).slice(-TAIL);
      };
      child.stdout.on("data", keep);
      child.stderr.on("data", keep);
      child.on("error", (err) => reject(new Error(`${what} failed: ${err.message}`)));
      child.on("close", (code) => {
        trace("installStep", { what, code, head, tail });
        if (code === 0) return resolve();
        const said = tail.trim().split(/\r?\n/).filter((l) => l.trim() !== "").at(-1) ?? "";
        reject(new Error(`${what} failed (exit ${code})${said ? `: ${said}` : ""}`));
      });
    });
  }
}
