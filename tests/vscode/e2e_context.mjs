// Context items in a real VS Code (run by test_e2e_context.py): the built-in TypeScript server checks
// main.ts; a terminal ran a command (shell integration reports its output); the user selects a line of main.ts and
// types `@` in the chat's prompt: the pick offers @problems, @symbol, @terminal, @changes, @folder and
// @url (besides the files), each becomes a chip with its token count, and the editor note's chip (✎ main.ts:2) follows
// the editor. Then the note's chip is removed for one prompt, and the setting switches it off.
// Usage: node e2e_context.mjs '{"url": ..., "folder": ..., "shots": ...}'
import fs from "node:fs";
import path from "node:path";
import { chipsText, mention, quickInput, runPhases, until, waitAnswer } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

const phases = [
  ["typescript-ready", async (wb, r) => {
    await wb.openFile("main.ts");
    await until("TypeScript's error squiggle in main.ts", () => wb.page.$(".editor-instance .squiggly-error"), 90000, 500);
    r.squiggle = true;
  }],
  ["terminal", async (wb, r) => {
    // The extension starts with its chat view (activation onView): commands run before that are
    // not known to it (README "Context items"), so the user has opened the chat first.
    // Once its prompt has the keys: a first open hands them over late, and would take them from the palette.
    await wb.focusChat();
    await wb.command("Terminal: Create New Terminal");
    await until("the terminal to take the keys", () => wb.page.evaluate(() => document.activeElement?.classList.contains("xterm-helper-textarea")), 30000);
    // xterm draws on a canvas: the command's output is known to be there once its copy in a file is.
    const copy = path.join(path.dirname(args.folder), "terminal-output.txt");
    await wb.page.keyboard.type(`echo build-failed-3-errors | tee ${copy}\n`);
    await until("the command's output", () => fs.existsSync(copy) && fs.readFileSync(copy, "utf8").includes("build-failed"), 30000);
    r.terminal = true;
  }],
  ["chips", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    // Back in main.ts, the user selects its second line (after the palette: its Escape would clear it).
    await wb.openFile("main.ts");
    await wb.focusEditor();
    const keys = wb.page.keyboard;
    await keys.down("Control");
    await keys.press("Home");
    await keys.up("Control");
    await keys.press("ArrowDown");
    await keys.down("Shift");
    await keys.press("End");
    await keys.up("Shift");
    r.editorChip = await until("the editor note's chip", async () => {
      const chips = await chipsText(chat);
      return chips.find((c) => c.startsWith("✎ main.ts:2") && / tok$/.test(c)) ?? null;
    }, 30000);
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Explain these:");
    await mention(wb, chat, "problems", () => quickInput(wb, "whole", { title: "@problems" }));
    await mention(wb, chat, "symbol", () => quickInput(wb, "greet", { title: "@symbol", list: false }));
    await mention(wb, chat, "terminal", () => quickInput(wb, "Last command", { title: "@terminal" }));
    await mention(wb, chat, "changes");
    await mention(wb, chat, "folder", async () => {
      await quickInput(wb, "./", { title: "@folder" });
      await quickInput(wb, "Tree only", { title: "@folder ./" });
    });
    r.chips = await mention(wb, chat, "url", () => quickInput(wb, `${args.site}/notes`, { title: "@url", list: false }));
    r.promptText = await chat.$eval("#prompt-input", (el) => el.value);
    await wb.shot("context-chips");
    await chat.click("#prompt-input");
    await wb.page.keyboard.press("Enter");
    await waitAnswer(chat, "First.");
  }],
  ["drop-note", async (wb, r) => {
    const chat = await wb.chat();
    await chat.click("#prompt .editor-chip .chip-remove");
    r.hidden = await until("the note's chip to go", async () => (await chipsText(chat)).every((c) => !c.startsWith("✎")), 5000);
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "second");
    await wb.page.keyboard.press("Enter");
    await waitAnswer(chat, "Second.");
    r.back = await until("the note's chip back for the next prompt", async () => (await chipsText(chat)).find((c) => c.startsWith("✎")) ?? null, 10000);
  }],
  ["setting-off", async (wb, r) => {
    const dir = path.join(args.folder, ".vscode");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "settings.json"), JSON.stringify({ "agentls.context.editor": false }));
    const chat = await wb.chat();
    r.off = await until("the note's chip to go with the setting", async () => (await chipsText(chat)).every((c) => !c.startsWith("✎")), 20000);
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "third");
    await wb.page.keyboard.press("Enter");
    await waitAnswer(chat, "Third.");
  }],
];

await runPhases(args, phases);
