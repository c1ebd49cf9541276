// Sessions at scale in the real VS Code (run by test_e2e_scale.py). A sub-agent: the model hands a job
// to the general subagent; the child's edit asks. The task card shows the child's steps live, nested
// and folded; the child's dialog shows in the chat, naming the task; "Open as session" shows the child
// on its own. Then the session menu's search box, and a session exported as Markdown.
// Usage: node e2e_scale.mjs '{"url": ..., "folder": ..., "shots": ...}'
import { Workbench, log, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

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
    // Text with punctuation must be quoted: the server's reason shows in the menu.
    await chat.type("#session-search", "sub-agent");
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
