// Context items in a real VS Code (run by test_e2e_context.py): the built-in TypeScript server checks
// main.ts; a terminal ran a command (shell integration reports its output); the user selects a line of main.ts and
// types `@` in the chat's prompt: the pick offers @problems, @symbol, @terminal, @changes, @folder and
// @url (besides the files), each becomes a chip with its token count, and the editor note's chip (✎ main.ts:2) follows
// the editor. Then the note's chip is removed for one prompt, and the setting switches it off.
// Usage: node e2e_context.mjs '{"url": ..., "folder": ..., "shots": ...}'
import fs from "node:fs";
import path from "node:path";
import { Workbench, log, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

async function quickInput(wb, words, { placeholder = "", title = "", list = true } = {}) {
  const selector = ".quick-input-widget input";
  await wb.page.waitForSelector(selector, { visible: true, timeout: 10000 });
  // The next quick input of a series opens a moment after the last one closed: wait for its own title.
  await until(`the quick input${placeholder ? ` "${placeholder}…"` : ""}${title ? ` titled ${title}` : ""} to have the focus`, () =>
    wb.page.$eval(selector, (el, [prefix, title]) => {
      const shown = document.querySelector(".quick-input-widget .quick-input-title")?.textContent ?? "";
      return document.activeElement === el && (el.placeholder || "").startsWith(prefix) && el.value === "" && shown.includes(title);
    }, [placeholder, title]));
  await wb.page.keyboard.type(words);
  const want = words.replace(/^@/, "").toLowerCase();
  if (list) await until(`the quick pick to list ${words}`, async () => (await wb.quickRows()).some((row) => row.toLowerCase().includes(want)), 10000);
  await wb.page.keyboard.press("Enter");
}

const chipsText = (chat) => chat.$$eval("#prompt .chip", (els) => els.filter((e) => !e.hidden).map((e) => e.textContent.replace(/\s*×$/, "").trim()));

async function mention(wb, chat, kind, then = async () => {}) {
  const before = (await chipsText(chat)).length;
  // The caret at the end (a click would put it where the pointer is, inside the text).
  await chat.$eval("#prompt-input", (el) => {
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  });
  await chat.type("#prompt-input", " @");
  await quickInput(wb, `@${kind}`, { placeholder: "Files to attach" });
  await then();
  return until(`the @${kind} chip`, async () => {
    const chips = await chipsText(chat);
    return chips.length > before && chips.some((c) => c.startsWith(`@${kind}`) && / tok$/.test(c)) ? chips : null;
  }, 30000);
}

async function waitAnswer(chat, words) {
  await until(`the answer "${words}"`, async () => {
    const text = await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"));
    return text.includes(words) ? text : null;
  }, 90000);
  await until("the turn to end", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Send", 30000);
}

const phases = [
  ["typescript-ready", async (wb, r) => {
    await wb.openFile("main.ts");
    await until("TypeScript's error squiggle in main.ts", () => wb.page.$(".editor-instance .squiggly-error"), 90000, 500);
    r.squiggle = true;
  }],
  ["terminal", async (wb, r) => {
    // The extension starts with its chat view (activation onView): commands run before that are
    // not known to it (README "Context items"), so the user has opened the chat first.
    await wb.command("agentls: Focus Chat");
    await wb.chat();
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

async function main() {
  const result = { phases: {} };
  const wb = await Workbench.open(args.url, args.folder, args.shots);
  try {
    for (const [name, fn] of phases) {
      const r = {};
      result.phases[name] = r;
      log("phase", name);
      try {
        await fn(wb, r);
      } catch (err) {
        result.failed = name;
        result.error = String(err?.stack ?? err);
        await wb.shot(`failure-${name}`).catch(() => {});
        log("workbench at failure:", JSON.stringify(await wb.state().catch((e) => String(e))));
        break;
      }
      r.ok = true;
      log("phase", name, "done", JSON.stringify(r).slice(0, 600));
    }
  } finally {
    await wb.close();
  }
  result.ok = result.failed === undefined;
  return result;
}

const result = await main();
console.log("RESULT " + JSON.stringify(result));
process.exit(result.ok ? 0 : 1);
