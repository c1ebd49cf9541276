// The end-to-end scenario in a real VS Code: unsaved change read by the agent, streamed text and tool
// cards, an edit permission with its diff, the edit saved and undoable in one step, hostile Markdown
// inert, a turn aborted mid-stream, and the session back after a window reload.
// Usage: node e2e.mjs '{"url": ..., "folder": ..., "shots": ...}'  (run by test_e2e.py)
import * as fs from "node:fs";
import * as path from "node:path";
import { Workbench, log, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);
const calc = path.join(args.folder, "calc.py");
const result = {};

function traceEvents() {
  if (!fs.existsSync(args.trace)) return [];
  return fs.readFileSync(args.trace, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

async function text(frame, selector) {
  return frame.$$eval(selector, (els) => els.map((e) => e.textContent).join("\n"));
}

async function main() {
  const wb = await Workbench.open(args.url, args.folder, args.shots);
  try {
    const page = wb.page;
    // 1. A workspace file with an unsaved change.
    await wb.openFile("calc.py");
    await wb.focusEditor();
    await page.keyboard.down("Control");
    await page.keyboard.press("End");
    await page.keyboard.up("Control");
    await page.keyboard.type("# unsaved note");
    await until("calc.py to be dirty", async () => (await wb.dirtyTabs()).length === 1);

    // 2. The chat view; a prompt typed in it.
    await wb.command("agentls: Focus Chat");
    let chat = await wb.chat();
    await until("the model picker to fill", () => chat.$eval("#model-picker", (s) => s.options.length > 0));
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Fix add() in calc.py");
    await page.keyboard.press("Enter");

    // 3. Streamed text and a tool card.
    await until("streamed text", async () => (await text(chat, ".message.assistant .md")).includes("Let me read calc.py"));
    await until("the read tool card", async () => (await text(chat, ".part.tool .tool-name")).includes("read"));
    await wb.shot("streamed-text-and-tool-card");

    // 4. The edit permission: open its diff, then allow.
    await chat.waitForSelector(".dialog.permission", { timeout: 20000 });
    await wb.shot("permission-dialog");
    await chat.click('.dialog.permission [data-action="diff"]');
    await page.waitForSelector(".monaco-diff-editor", { timeout: 10000 });
    const diffText = await until("the proposed side of the diff", async () => {
      const t = await page.$eval(".monaco-diff-editor", (el) => el.textContent.replace(/\u00a0/g, " "));
      return t.includes("a + b") ? t : null;
    });
    result.diffShowsProposal = diffText.includes("a + b") && diffText.includes("# unsaved note");
    await wb.shot("permission-diff");
    await chat.click('.dialog.permission [data-action="once"]');
    await until("the dialog to close", async () => (await chat.$(".dialog.permission")) === null);

    // 5. The answer shows; the edit is in the buffer, saved.
    await until("the final answer", async () => (await text(chat, ".message.assistant .md")).includes("Fixed add"), 20000);
    await until("the turn to end", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Send");
    await wb.shot("answer");
    await wb.command("View: Close Editor"); // the diff editor (it may have taken calc.py's preview tab)
    await wb.openFile("calc.py");
    const edited = await until("the edit in the buffer", async () => {
      const t = await wb.editorText();
      return t.includes("return a + b") ? t : null;
    });
    result.bufferAfterEdit = edited;
    result.dirtyAfterEdit = await wb.dirtyTabs();
    result.diskAfterEdit = fs.readFileSync(calc, "utf8");
    result.notificationsAfterEdit = await wb.notifications();
    await wb.shot("edited-buffer");

    // 6. Hostile Markdown rendered inert.
    result.hostile = await chat.evaluate(() => {
      const root = document.getElementById("transcript");
      return {
        scripts: root.querySelectorAll("script").length,
        handlers: [...root.querySelectorAll("*")].filter((el) => [...el.attributes].some((a) => a.name.startsWith("on"))).length,
        images: root.querySelectorAll("img").length,
        badLinks: [...root.querySelectorAll("a")].filter((a) => !/^(https?:|mailto:|#)/i.test(a.getAttribute("href") ?? "")).length,
        shownAsText: root.textContent.includes("<img src=x onerror="),
        pwned: window.__pwned === true,
      };
    });

    // 7. One undo reverts the agent's edit (the user's unsaved note stays).
    await wb.focusEditor();
    await page.keyboard.down("Control");
    await page.keyboard.press("z");
    await page.keyboard.up("Control");
    result.bufferAfterUndo = await until("the undo", async () => {
      const t = await wb.editorText();
      return t.includes("return a - b") ? t : null;
    });
    await wb.shot("after-undo");

    // 8. A second prompt, aborted mid-stream with Escape.
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Now write a long essay about it");
    await page.keyboard.press("Enter");
    await until("the second answer to stream", async () => (await text(chat, ".message.assistant .md")).includes("Essay part"), 20000);
    await wb.shot("streaming-second-answer");
    const stopAt = Date.now();
    await page.keyboard.press("Escape");
    await until("the turn to stop", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Send", 5000, 20);
    result.abortMs = Date.now() - stopAt;
    await until("the stopped marker", async () => (await text(chat, ".message.assistant .stopped")).includes("Stopped"), 5000);
    await wb.shot("aborted");

    // 9. Reload the window: the session is listed and its transcript is back.
    const reloaded = page.waitForNavigation({ waitUntil: "domcontentloaded", timeout: 30000 });
    await wb.command("Developer: Reload Window");
    await reloaded;
    await page.waitForSelector(".monaco-workbench", { timeout: 30000 });
    // The side bar comes back with the chat view open, as the user left it.
    chat = await wb.chat(40000);
    await until("the transcript after reload", async () => (await text(chat, ".message.assistant .md")).includes("Fixed add"), 20000);
    await chat.click(".session-title");
    result.sessionsAfterReload = await until("the session list", async () => {
      const rows = await chat.$$eval(".session-row .session-link", (els) => els.map((e) => e.textContent));
      return rows.length > 0 ? rows : null;
    });
    result.titleAfterReload = await chat.$eval(".session-title", (b) => b.textContent);
    await wb.shot("after-reload");

    // 10. The server dies: the extension restarts it, says so once, and the view is rebuilt from it.
    const started = () => traceEvents().filter((e) => e.event === "serverInitialized");
    const before = started().length;
    const victim = started().at(-1).pid;
    process.kill(victim, "SIGKILL");
    await until("the server to be restarted", () => started().length > before, 30000);
    await until("the transcript rebuilt after the restart", async () => (await text(chat, ".message.assistant .md")).includes("Fixed add"), 20000);
    await until("the restart notice", async () => (await wb.notifications()).some((n) => n.includes("restarting")), 10000);
    result.restartNotices = (await wb.notifications()).filter((n) => n.includes("restarting")).length;
    result.restartedPid = started().at(-1).pid;
    result.killedPid = victim;
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Are you back?");
    await page.keyboard.press("Enter");
    await until("an answer from the restarted server", async () => (await text(chat, ".message.assistant .md")).includes("Back after the restart"), 20000);
    await wb.shot("after-server-restart");
    result.ok = true;
  } catch (err) {
    result.ok = false;
    result.error = String(err?.stack ?? err);
    await wb.shot("failure").catch(() => {});
    for (const frame of wb.page.frames()) {
      const probe = await frame.evaluate(() => [document.readyState, !!document.getElementById("prompt-input"), document.querySelectorAll("iframe").length]).catch((e) => String(e));
      log("frame", frame.url().slice(0, 160), JSON.stringify(probe));
    }
  } finally {
    await wb.close();
  }
}

await main();
console.log("RESULT " + JSON.stringify(result));
process.exit(result.ok ? 0 : 1);
