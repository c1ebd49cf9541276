// `@session` and `@terminal` (its selection, through the clipboard) in a real VS Code (run by
// test_e2e_mentions.py): an earlier session's answer attached to a new session's prompt; then two
// commands in a terminal, its whole text selected and attached as "The selected text" (not the last
// command's output), and the user's clipboard as it was afterwards.
// Usage: node e2e_mentions.mjs '{"url", "folder", "shots"}'
import fs from "node:fs";
import path from "node:path";
import { chipsText, mention, quickInput, runPhases, until, waitAnswer } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);
const CLIPBOARD = "the user's own clipboard 5150";

await runPhases(args, [
  ["earlier", async (wb, r) => {
    const chat = await wb.prompt("Remember the code word");
    await waitAnswer(chat, "EARLIER-ANSWER-4242");
    r.title = await until("the session's title", () => chat.evaluate(() => document.querySelector("#session-bar, .session-title, #chat-header")?.textContent ?? document.body.textContent).then((t) => (t.includes("Earlier talk") ? "Earlier talk" : null)), 20000).catch(() => null);
  }],
  ["session", async (wb, r) => {
    await wb.command("agentls: New Session");
    const chat = await wb.chat();
    await until("an empty transcript", async () => (await chat.$$(".message")).length === 0, 10000);
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Use this:");
    r.chips = await mention(wb, chat, "session", () => quickInput(wb, "Earlier talk", { title: "@session" }));
    await wb.shot("mention-session");
    await chat.click("#prompt-input");
    await wb.page.keyboard.press("Enter");
    await waitAnswer(chat, "SESSION-SEEN");
  }],
  ["terminal-selection", async (wb, r) => {
    const page = wb.page;
    await page.browserContext().overridePermissions(new URL(args.url).origin, ["clipboard-read", "clipboard-write", "clipboard-sanitized-write"]);
    await page.evaluate((text) => navigator.clipboard.writeText(text), CLIPBOARD);
    await wb.command("Terminal: Create New Terminal");
    await until("the terminal to take the keys", () => page.evaluate(() => document.activeElement?.classList.contains("xterm-helper-textarea")), 30000);
    // xterm draws on a canvas: a command's output is known to be there once its copy in a file is.
    const copy = path.join(path.dirname(args.folder), "terminal-output.txt");
    await page.keyboard.type(`echo first-1111\n`);
    await page.keyboard.type(`echo last-2222 | tee ${copy}\n`);
    await until("the commands' output", () => fs.existsSync(copy) && fs.readFileSync(copy, "utf8").includes("last-2222"), 30000);
    await wb.command("Terminal: Select All");
    await wb.shot("terminal-selected");
    // To the chat with Focus Chat's key (Ctrl+Alt+A) while the terminal has the keys: the extension
    // keeps that key from the shell (commandsToSkipShell), which would have taken it and dropped the
    // selection. (The palette's Escape would clear the selection too.)
    await until("the terminal to have the keys", () => page.evaluate(() => document.activeElement?.classList.contains("xterm-helper-textarea")), 10000);
    await page.keyboard.down("Control");
    await page.keyboard.down("Alt");
    await page.keyboard.press("a");
    await page.keyboard.up("Alt");
    await page.keyboard.up("Control");
    const chat = await wb.chat();
    r.keyToChat = await until("the chat's prompt to have the keys after Ctrl+Alt+A", () => chat.evaluate(() => document.hasFocus() && document.activeElement?.id === "prompt-input").catch(() => false), 10000);
    await chat.type("#prompt-input", "What failed?");
    const before = (await chipsText(chat)).length;
    r.chips = await mention(wb, chat, "terminal", async () => {
      // With shell integration the last command's output is offered first; the user wants the selection.
      r.offered = await until("the @terminal pick or its chip", async () => {
        const rows = await wb.quickRows();
        if (rows.some((row) => row.includes("The selected text"))) return rows;
        return (await chipsText(chat)).length > before ? ["(no pick: the selection went at once)"] : null;
      }, 15000);
      if (r.offered.some((row) => row.includes("The selected text"))) {
        await page.keyboard.type("The selected text");
        await page.keyboard.press("Enter");
      }
      await wb.shot("terminal-picked");
    });
    await wb.shot("mention-terminal");
    await chat.click("#prompt-input");
    await page.keyboard.press("Enter");
    await waitAnswer(chat, "TERMINAL-SEEN");
    r.clipboard = await page.evaluate(() => navigator.clipboard.readText());
  }],
]);
