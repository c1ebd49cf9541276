// When no agentls is found, the extension offers to install the one it carries (ManagedServer); once
// installed it is the server of last resort, reinstalled when the extension is updated.
import * as vscode from "vscode";
import { trace } from "../trace";
import { ManagedServer } from "./managed";
import { findPython, FLOOR } from "./python";

export const INSTALL = "Install";

export class ServerInstaller {
  private readonly managed: ManagedServer;
  private installing: Promise<boolean> | undefined;
  private readonly version: string;

  constructor(context: vscode.ExtensionContext, private readonly output: vscode.OutputChannel) {
    this.version = String((context.extension.packageJSON as { version?: unknown }).version ?? "");
    this.managed = new ManagedServer(context.globalStorageUri.fsPath, context.extensionUri.fsPath, this.version, (line) => output.appendLine(line));
  }

  /** Whether this build carries a wheel to install. */
  get canInstall(): boolean {
    return this.managed.bundledWheel() !== undefined;
  }

  /** The managed server's executable (reinstalled first when another extension version installed it). */
  async location(): Promise<string | undefined> {
    const state = this.managed.state();
    if (state === "current") return this.managed.executable;
    if (state === "stale" && this.canInstall) {
      trace("managedStale", {});
      return (await this.update()) ? this.managed.executable : undefined;
    }
    return undefined;
  }

  /** The extension was updated: its wheel goes into the venv the user let it make before. */
  private async update(): Promise<boolean> {
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `agentls: updating the server to ${this.version}` }, () =>
        this.managed.update(),
      );
      return true;
    } catch (err) {
      // A venv whose Python is gone cannot be updated: the install is offered again.
      const cause = err instanceof Error ? err.message : String(err);
      trace("updateFailed", { error: cause });
      this.output.appendLine(`updating the server failed: ${cause}`);
      return false;
    }
  }

  /** The notification that offers the install; `started` runs once it succeeded. */
  offer(problem: string, started: () => Promise<void>): void {
    trace("installOffered", { problem });
    const message =
      "agentls: no agentls server was found (the agentls.server.path setting, the workspace's .venv, PATH). " +
      `Install agentls ${this.version}, which comes with this extension, into a private environment? ` +
      `It needs Python ${FLOOR.join(".")} or newer; its dependencies come from your Python package index.`;
    void vscode.window.showInformationMessage(message, INSTALL, "Open Settings").then(async (choice) => {
      if (choice === "Open Settings") {
        await vscode.commands.executeCommand("workbench.action.openSettings", "agentls.server.path");
      } else if (choice === INSTALL && (await this.install("agentls: installing the server"))) {
        await started();
      }
    });
  }

  /** Find the user's Python and install; failures are shown with their cause. True when installed. */
  install(title: string): Promise<boolean> {
    this.installing ??= this.installOnce(title).finally(() => {
      this.installing = undefined;
    });
    return this.installing;
  }

  private async installOnce(title: string): Promise<boolean> {
    const found = await findPython(this.configuredPython(), process.env.PATH ?? "");
    if (found.python === undefined) {
      trace("installNoPython", { problem: found.problem });
      void vscode.window.showErrorMessage(`agentls: cannot install the server: ${found.problem}`);
      return false;
    }
    const python = found.python;
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, async (progress) => {
        progress.report({ message: `with Python ${python.version} (${python.command})` });
        await this.managed.install(python);
      });
      void vscode.window.showInformationMessage(`agentls: installed agentls ${this.version} (Python ${python.version}).`);
      return true;
    } catch (err) {
      const cause = err instanceof Error ? err.message : String(err);
      trace("installFailed", { error: cause });
      this.output.appendLine(`installing the server failed: ${cause}`);
      void vscode.window.showErrorMessage(`agentls: installing the server failed: ${cause}. See the agentls output.`);
      return false;
    }
  }

  /**
   * The Python extension's interpreter setting; in an untrusted workspace only the user's own value
   * (a workspace must not choose the program the extension runs). Its default "python" means unset.
   */
  private configuredPython(): string {
    const inspected = vscode.workspace.getConfiguration("python").inspect<string>("defaultInterpreterPath");
    const value = vscode.workspace.isTrusted
      ? vscode.workspace.getConfiguration("python").get<string>("defaultInterpreterPath", "")
      : (inspected?.globalValue ?? "");
    return value === "python" ? "" : value;
  }
}
