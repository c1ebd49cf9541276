// Refactors by VS Code's language servers (run by test_e2e_refactors.py): a real VS Code with its
// built-in TypeScript server and the extension. The user has the TypeScript files open and TypeScript
// has checked them (mean.ts's error squiggle); the fake model calls rename, code_actions and format, which
// the extension answers with vscode.execute*Provider; the server applies the edits as the agent's own,
// and the Changes view lists them for review; "Undo All Agent Changes" puts the files back.
// Usage: node e2e_refactors.mjs '{"url": ..., "folder": ..., "shots": ...}'
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runPhases, until, waitAnswer } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);
const read = (name) => readFileSync(join(args.folder, name), "utf8");

const phases = [
  ["typescript-ready", async (wb, r) => {
    for (const name of ["lib.ts", "first.ts", "clash.ts", "messy.ts", "mean.ts"]) await wb.openFile(name);
    // TypeScript has loaded the project once it marks mean.ts's missing name.
    await until("TypeScript's error squiggle in mean.ts", () => wb.page.$(".editor-instance .squiggly-error"), 90000, 500);
    r.squiggle = true;
  }],
  ["refactor", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Rename total to sum, fix mean.ts, format messy.ts");
    await wb.page.keyboard.press("Enter");
    await waitAnswer(chat, "Refactored.");
    r.cards = await chat.$$eval(".tool", (els) => els.map((e) => e.textContent.replace(/\s+/g, " ").trim().slice(0, 200)));
    r.files = Object.fromEntries(["lib.ts", "first.ts", "clash.ts", "mean.ts", "messy.ts", "tidy.ts"].map((n) => [n, read(n)]));
    r.dirty = await wb.dirtyTabs();
    await wb.shot("refactored");
  }],
  ["review", async (wb, r) => {
    await wb.focusChanges();
    r.rows = await until("the renamed files in the Changes view", async () => {
      const rows = await wb.changesRows();
      return ["lib.ts", "first.ts", "clash.ts"].every((f) => rows.some((x) => x.includes(f))) ? rows : null;
    }, 20000);
    await wb.shot("changes-view");
    await wb.command("agentls: Undo All Agent Changes");
    r.undone = await until("the files as they were", async () => {
      const now = Object.fromEntries(["lib.ts", "first.ts", "clash.ts"].map((n) => [n, read(n)]));
      return now["first.ts"].includes("total") && now["clash.ts"].includes("total") && now["lib.ts"].includes("function total") ? now : null;
    }, 20000);
  }],
];

await runPhases(args, phases);
