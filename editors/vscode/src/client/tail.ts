// The server's output channel, keeping the last of what the server wrote to stderr: when it exits
// before the handshake, that is the cause to tell the user (the language client writes stderr with
// `append`, its own log lines with `appendLine`).
import type * as vscode from "vscode";

const KEEP = 4000;

export class StderrTail implements vscode.OutputChannel {
  private text = "";

  constructor(private readonly inner: vscode.OutputChannel) {}

  get name(): string {
    return this.inner.name;
  }

  /** Forget what was written so far (a new process starts). */
  reset(): void {
    this.text = "";
  }

  /** The last non-empty lines the server wrote to stderr, in one short line. */
  last(lines = 3, limit = 300): string {
    const tail = this.text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).slice(-lines).join(" | ");
    return tail.length <= limit ? tail : `…${tail.slice(tail.length - limit + 1)}`;
  }

  append(value: string): void {
    this.text = (this.text + value).slice(-KEEP);
    this.inner.append(value);
  }

  appendLine(value: string): void {
    this.inner.appendLine(value);
  }

  replace(value: string): void {
    this.inner.replace(value);
  }

  clear(): void {
    this.inner.clear();
  }

  show(preserveFocus?: boolean): void;
  show(column?: vscode.ViewColumn, preserveFocus?: boolean): void;
  show(first?: boolean | vscode.ViewColumn, preserveFocus?: boolean): void {
    if (typeof first === "boolean" || first === undefined) this.inner.show(first);
    else this.inner.show(first, preserveFocus);
  }

  hide(): void {
    this.inner.hide();
  }

  dispose(): void {
    this.inner.dispose();
  }
}
