// Sessions at scale in the real VS Code (run by test_e2e_scale.py). A sub-agent: the model hands a job
// to the general subagent; the child's edit asks. The task card shows the child's steps live, nested
// and folded; the child's dialog shows in the chat, naming the task; "Open as session" shows the child
// on its own. Then the session menu's search box, and a session exported as Markdown.
// Usage: node e2e_scale.mjs '{"url": ..., "folder": ..., "shots": ...}'
import * as fs from "node:fs";
import * as path from "node:path";
import { Workbench, log, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

/** Every chat webview's inner frame (the sidebar's, and one per editor tab). */
async function chatFrames(page) {
  const found = [];
  for (const outer of await page.$$("iframe")) {
    try {
      const outerFrame = await outer.contentFrame();
      for (const inner of (await outerFrame?.$$("iframe")) ?? []) {
        const frame = await inner.contentFrame();
        if (frame && (await frame.$("#prompt-input"))) found.push(frame);
      }
    } catch {
      // frames come and go
    }
  }
  return found;
}

const dialogs = (chat) => chat.$$eval(".dialog.permission .dialog-body", (els) => els.map((e) => e.textContent));
const answers = (chat) => chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"));
const idle = (chat) => until("the turn to end", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Send", 30000);

async function newPrompt(chat, page, words) {
  await chat.click(".icon-button[aria-label='New session']");
  await until("a new session", async () => (await chat.$$(".message")).length === 0);
  await chat.click("#prompt-input");
  await chat.type("#prompt-input", words);
  await page.keyboard.press("Enter");
}

const steps = (chat) => chat.$$eval(".part.tool .subtask-step", (els) => els.map((e) => e.textContent.replace(/\s+/g, " ").trim()));
const summary = (chat) => chat.$eval(".part.tool details.subtask > summary", (e) => e.textContent);
const folded = (chat) => chat.$eval(".part.tool details.subtask", (e) => !e.open);

const phases = [
  ["dialog", async (wb, r, s) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    s.chat = chat;
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Fix add() with a sub-agent");
    await wb.page.keyboard.press("Enter");
    await chat.waitForSelector(".dialog.permission", { timeout: 30000 });
    r.dialogTitle = await chat.$eval(".dialog.permission .dialog-title", (e) => e.textContent);
    r.dialogTask = await chat.$eval(".dialog.permission .dialog-task", (e) => e.textContent);
    // The card, while the child waits: folded, saying it runs; opened, the child's steps so far.
    await until("the task card's sub-agent box", () => chat.$(".part.tool details.subtask"));
    r.foldedWhileRunning = await folded(chat);
    r.summaryWhileRunning = await summary(chat);
    await chat.click(".part.tool details.subtask > summary");
    await until("the child's edit step", async () => (await steps(chat)).some((t) => t.includes("edit")));
    r.stepsWhileRunning = await steps(chat);
    await wb.shot("subagent-dialog");
  }],
  ["answered", async (wb, r, s) => {
    const chat = s.chat;
    await chat.click('.dialog.permission [data-action="once"]');
    await until("the dialog to close", async () => (await chat.$(".dialog.permission")) === null);
    await until("the parent's answer", async () => {
      const text = await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"));
      return text.includes("The sub-agent fixed add().");
    }, 30000);
    await until("the turn to end", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Send", 30000);
    r.steps = await steps(chat);
    r.summary = await summary(chat);
    r.stillOpen = !(await folded(chat)); // the user's unfold survives the redraws
    r.childTextInTranscript = await chat.$$eval(".message .part.text", (els) => els.some((e) => e.textContent.includes("Editing calc.py.")));
    await wb.shot("subagent-done");
  }],
  ["open-child", async (wb, r, s) => {
    const chat = s.chat;
    await chat.click(".part.tool .subtask-open");
    await until("the child session", async () => (await chat.$eval(".session-title", (b) => b.textContent)).includes("fix add"));
    r.title = await chat.$eval(".session-title", (b) => b.textContent);
    await until("the child's transcript", async () => {
      const text = await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"));
      return text.includes("Editing calc.py.") && text.includes("Fixed add().");
    });
    r.cards = await chat.$$eval(".part.tool .tool-name", (els) => els.map((e) => e.textContent));
    await wb.shot("subagent-child-session");
  }],
  ["search", async (wb, r, s) => {
    const chat = s.chat;
    await chat.click(".icon-button[aria-label='New session']");
    await until("a new session", async () => (await chat.$$(".message")).length === 0);
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "tell me about zebras");
    await wb.page.keyboard.press("Enter");
    await until("the zebra answer", async () => (await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"))).includes("Zebras have stripes."), 30000);
    await until("the turn to end", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Send", 30000);
    await chat.click(".session-title");
    await chat.waitForSelector("#session-search", { visible: true });
    const hits = () => chat.$$eval(".search-hit", (els) => els.map((e) => ({ title: e.querySelector(".session-link").textContent, snippet: e.querySelector(".snippet").textContent, marks: [...e.querySelectorAll("mark")].map((m) => m.textContent) })));
    // A hyphenated word is searched as typed: it finds the session, no syntax error.
    await chat.type("#session-search", "sub-agent");
    await until("the hits for sub-agent", async () => (await hits()).length > 0);
    r.typedHits = await hits();
    r.typedError = await chat.$(".search-error").then((e) => e !== null);
    // FTS5 syntax only after fts:, where a bad query shows the server's reason in the menu.
    await chat.$eval("#session-search", (el) => { el.value = ""; });
    await chat.type("#session-search", 'fts:"unclosed');
    await until("the query's error", () => chat.$(".search-error"));
    r.error = await chat.$eval(".search-error", (e) => e.textContent);
    await chat.$eval("#session-search", (el) => { el.value = ""; });
    await chat.type("#session-search", "fixed");
    await until("the hits for fixed", async () => (await hits()).length > 0);
    r.hits = await hits();
    await wb.shot("scale-search");
    await chat.click(".search-hit .session-link");
    await until("the found session", async () => (await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"))).includes("The sub-agent fixed add()."));
    r.menuClosed = await chat.$eval("#sessions", (el) => el.hidden);
  }],
  ["export", async (wb, r, s) => {
    const chat = s.chat;
    await chat.click(".session-title");
    await chat.click(".session-actions [aria-label='Export session as Markdown']");
    await until("the exported Markdown", async () => (await wb.editorText().catch(() => "")).includes("The sub-agent fixed add()."), 20000);
    r.text = await wb.editorText();
    r.tab = await wb.page.$eval(".tab.active", (t) => t.getAttribute("aria-label"));
    await wb.shot("scale-export");
  }],
  ["side-by-side", async (wb, r, s) => {
    const view = s.chat;
    await view.evaluate(() => { window.__sidebar = true; });
    // Session B in the sidebar, waiting on its dialog; then in an editor tab of its own.
    await newPrompt(view, wb.page, "edit b.py");
    await until("B's dialog", async () => (await dialogs(view)).some((d) => d.includes("b.py")), 30000);
    // The session menu's "Open in tab" (the command "agentls: Open Session in Editor Tab" does the same).
    if (await view.$eval("#sessions", (el) => el.hidden)) await view.click(".session-title");
    await view.click(".session-actions [aria-label='Open session in an editor tab']");
    const tab = await until("the editor tab's chat", async () => {
      for (const frame of await chatFrames(wb.page)) {
        if (!(await frame.evaluate(() => window.__sidebar === true))) return frame;
      }
      return null;
    });
    s.tab = tab;
    await until("B's dialog in the tab", async () => (await dialogs(tab)).some((d) => d.includes("b.py")));
    // Session A in the sidebar, asking too: both turns wait, each on its own dialog.
    await newPrompt(view, wb.page, "edit a.py");
    await until("A's dialog", async () => (await dialogs(view)).some((d) => d.includes("a.py")), 30000);
    r.both = { sidebar: await dialogs(view), tab: await dialogs(tab) };
    r.tabs = await wb.page.$$eval(".tabs-container .tab", (tabs) => tabs.map((t) => t.getAttribute("aria-label")));
    await wb.shot("scale-side-by-side");
    // A answered in the sidebar: A ends; B, in the tab, still waits.
    await view.click('.dialog.permission [data-action="once"]');
    await until("A's answer", async () => (await answers(view)).includes("A is done."), 30000);
    await idle(view);
    r.afterA = { sidebar: await dialogs(view), tab: await dialogs(tab), tabAnswers: await answers(tab), tabStatus: await tab.$eval("#status", (e) => e.textContent) };
    await tab.click('.dialog.permission [data-action="once"]');
    await until("B's answer", async () => (await answers(tab)).includes("B is done."), 30000);
    await idle(tab);
    r.afterB = { sidebar: await answers(view), tab: await answers(tab) };
    r.files = { a: fs.readFileSync(path.join(args.folder, "a.py"), "utf8"), b: fs.readFileSync(path.join(args.folder, "b.py"), "utf8") };
    r.notices = (await wb.notifications()).filter((n) => n.includes("asks"));
    await wb.shot("scale-side-by-side-done");
  }],
  ["notice", async (wb, r, s) => {
    const view = s.chat;
    // C waits for a file before its edit; meanwhile the sidebar goes to another session.
    await newPrompt(view, wb.page, "wait, then edit c.py");
    await until("C's command running", () => view.$(".part.tool.status-running"), 30000);
    if (await view.$eval("#sessions", (el) => el.hidden)) await view.click(".session-title");
    await view.$eval("#session-search", (el) => { el.value = ""; });
    await view.type("#session-search", "zebras");
    await until("the zebra session found", () => view.$$eval(".search-hit .snippet", (els) => els.some((e) => e.textContent.includes("Zebras"))));
    await view.click(".search-hit .session-link");
    await until("the zebra session", async () => (await answers(view)).includes("Zebras have stripes."));
    fs.writeFileSync(path.join(args.folder, "go"), "");
    const notice = await until("the notification of C's dialog", async () => (await wb.notifications()).find((n) => n.includes("waits for your answer")), 30000);
    r.notice = notice;
    await wb.shot("scale-notice");
    await wb.page.evaluate(() => {
      const item = [...document.querySelectorAll(".notification-list-item")].find((i) => i.textContent.includes("waits for your answer"));
      [...(item?.querySelectorAll(".monaco-button") ?? [])].find((b) => b.textContent === "Open Chat")?.click();
    });
    await until("C's dialog in the sidebar", async () => (await dialogs(view)).some((d) => d.includes("c.py")), 20000);
    r.dialogs = await dialogs(view);
    await view.click('.dialog.permission [data-action="once"]');
    await until("C's answer", async () => (await answers(view)).includes("C is done."), 30000);
    await idle(view);
  }],
];

async function main() {
  const result = { phases: {} };
  const wb = await Workbench.open(args.url, args.folder, args.shots);
  const shared = {};
  try {
    for (const [name, fn] of phases) {
      const r = {};
      result.phases[name] = r;
      log("phase", name);
      try {
        await fn(wb, r, shared);
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
