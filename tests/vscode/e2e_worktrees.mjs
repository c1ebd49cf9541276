// Two worktree sessions editing the same file at once (run by test_e2e_worktrees.py). The user opens
// calc.py of the checkout, starts session alpha with "agentls: New Worktree Session…" (its edit held
// back by the model), then session beta with the chat's "+ Worktree" button (a taken name is refused
// as it is typed); beta edits calc.py, then alpha does. The checkout's calc.py stays as it was, on disk
// and in its editor; each worktree holds its own edit; an edited file opens from its worktree. Then
// "agentls: Worktrees": the list with each one's state, Show Changes, Merge alpha (merged), Merge beta
// (a conflict with calc.py named, beta's edit still in its worktree), Open in New Window, Discard.
// With "mode": "nogit" (a folder outside git) the two commands and the chat's button say why they
// are not available, and no session is made.
// Usage: node e2e_worktrees.mjs '{"url", "folder", "shots", "mode"?}'
import * as fs from "node:fs";
import * as path from "node:path";
import { log, quickInput, runPhases, until, waitAnswer } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);
const checkoutFile = path.join(args.folder, "calc.py");
const read = (file) => fs.readFileSync(file, "utf8");
const worktrees = {}; // name → path, as the chat's label gives it

/** The chat header's worktree label: {name, path, text}, or null for a checkout session. */
const headerTag = (chat) => chat.evaluate(() => {
  const tag = document.querySelector("#bar .worktree-tag");
  return tag ? { name: tag.dataset.worktree, path: tag.dataset.path, text: tag.textContent, title: tag.title } : null;
});

/** Open the sessions menu: its rows as {title, tag}. */
async function sessionRows(chat) {
  const open = async () => !(await chat.$eval("#sessions", (el) => el.hidden));
  await until("the session menu", async () => {
    if (await open()) return true;
    await chat.click(".session-title").catch(() => null);
    return until("the menu to open", open, 1000).catch(() => false);
  });
  return chat.$$eval(".session-row", (rows) => rows.map((r) => ({
    title: r.querySelector(".session-link")?.textContent ?? "",
    tag: r.querySelector(".worktree-tag")?.textContent ?? null,
  })));
}

/**
 * Run the palette command titled exactly `title`: "agentls: Worktrees" also matches the recently used
 * "agentls: New Worktree Session…", listed first, so its own row is clicked, not the first one.
 */
async function command(wb, title) {
  await wb.openQuickInput("F1", title, title, 20000);
  const row = await until(`the palette row ${title}`, () => wb.page.evaluateHandle((t) =>
    [...document.querySelectorAll(".quick-input-widget .quick-input-list .monaco-list-row")]
      .find((r) => { const l = r.getAttribute("aria-label") ?? ""; return l === t || l.startsWith(`${t},`); }) ?? null, title)
    .then((h) => h.asElement()), 10000);
  await row.click();
}

/** The input box of "New Worktree Session…": type `name`, read its validation message, Enter unless refused. */
async function nameWorktree(wb, name) {
  await quickInput(wb, name, { title: "New Worktree Session", list: false }).catch(async (err) => {
    throw new Error(`${err}; workbench: ${JSON.stringify(await wb.state())}`);
  });
}

/** Run "agentls: Worktrees", pick `name`, then `action` (and `then` for the picks after it). */
async function worktreeAction(wb, name, action) {
  await command(wb, "agentls: Worktrees");
  await quickInput(wb, name, { title: "agentls Worktrees" });
  await quickInput(wb, action, { title: `Worktree ${name}` });
}

/**
 * A picture of part of the page at full resolution, to judge the glyphs. Inside the viewport only:
 * a shot beyond it resizes the page for a moment, and the workbench kept a narrower side bar after.
 */
const zoom = (wb, name, clip) => wb.page.screenshot({ path: path.join(args.shots, `zoom-${name}.png`), clip, captureBeyondViewport: false });

/** The title of the quick input shown now ("" for the palette), or null when none is. */
const quickTitle = (wb) => wb.page.evaluate(() => {
  const widget = document.querySelector(".quick-input-widget");
  return widget && widget.style.display !== "none" ? widget.querySelector(".quick-input-title")?.textContent ?? "" : null;
});

/** The rows of the "agentls: Worktrees" pick once it lists `count` (the palette before it has rows too); the pick stays open. */
async function worktreeRows(wb, count = 2) {
  await command(wb, "agentls: Worktrees");
  return until("the worktrees listed", async () => {
    if (!(await quickTitle(wb))?.includes("agentls Worktrees")) return null;
    const rows = await wb.quickRows();
    return rows.length >= count ? rows : null;
  }, 15000);
}

/** Close the quick input shown now, and wait for it to be gone. */
async function closeQuick(wb) {
  await wb.page.keyboard.press("Escape");
  await until("the quick input closed", async () => (await quickTitle(wb)) === null, 5000);
}

/** The text of a notification holding `words`, and a way to click its button `label`. */
async function notification(wb, words, timeout = 20000) {
  return until(`a notification saying "${words}"`, async () => (await wb.notifications()).find((n) => n.includes(words)) ?? null, timeout);
}

async function clickNotificationButton(wb, words, label) {
  const handle = await wb.page.evaluateHandle((words, label) => {
    const item = [...document.querySelectorAll(".notification-list-item")].find((i) => i.querySelector(".notification-list-item-message")?.textContent?.includes(words));
    return [...(item?.querySelectorAll(".monaco-button") ?? [])].find((b) => b.textContent === label) ?? null;
  }, words, label);
  if (!handle.asElement()) throw new Error(`no "${label}" button on the notification "${words}"`);
  await handle.asElement().click();
}

/** Wait for the session in the chat to be `name`'s worktree session; its path. */
async function shownWorktree(chat, name) {
  const tag = await until(`the chat labelled as worktree ${name}`, async () => {
    const t = await headerTag(chat);
    return t?.name === name ? t : null;
  }, 20000);
  worktrees[name] = tag.path;
  return tag;
}

/** The warnings that say worktree sessions are not available here. */
const unavailable = async (wb) => (await wb.notifications()).filter((n) => n.includes("not available here"));

const outsideGit = [
  ["unavailable", async (wb, r) => {
    // Each way in says it (VS Code shows one notification for identical ones: clear them between).
    const ways = {
      palette: () => command(wb, "agentls: New Worktree Session…"),
      worktrees: () => command(wb, "agentls: Worktrees"),
      chatButton: async () => {
        await wb.command("agentls: Focus Chat");
        // The chat draws its bar again as its state arrives after the focus: a button found just
        // before that is detached when clicked ("Node is detached from document", seen in a full run
        // beside another): retry until the click lands on one that holds still.
        await until("the chat's New Worktree Session button to take the click", async () =>
          (await wb.chat()).click("#bar .new-worktree").then(() => true, () => false),
        );
      },
    };
    for (const [way, run] of Object.entries(ways)) {
      await wb.command("Notifications: Clear All Notifications");
      await until("no notification", async () => (await wb.notifications()).length === 0, 5000);
      await run();
      r[way] = await until(`the warning of ${way}`, async () => (await unavailable(wb))[0] ?? null, 15000);
      if (way === "palette") await wb.shot("outside-git");
    }
    r.inputBox = await wb.page.evaluate(() => {
      const quick = document.querySelector(".quick-input-widget");
      return quick && quick.style.display !== "none" ? quick.querySelector(".quick-input-title")?.textContent ?? "" : null;
    });
    r.tag = await headerTag(await wb.chat());
  }],
];

const inGit = [
  ["alpha-from-palette", async (wb, r) => {
    // The server answers first (the models fill the picker): on a busy machine it starts slowly.
    await wb.command("agentls: Focus Chat");
    const ready = await wb.chat();
    await until("the server's models in the picker", () => ready.$eval("#model-picker", (el) => el.options.length > 0), 60000);
    await wb.openFile("calc.py");
    r.checkoutEditor = await wb.editorText();
    await command(wb, "agentls: New Worktree Session…");
    await nameWorktree(wb, "alpha");
    const chat = await wb.chat();
    r.tag = await shownWorktree(chat, "alpha");
    // The model holds alpha's edit until beta has made its own: both turns run at once.
    await wb.prompt("ALPHA: set b to 20 in calc.py");
    await until("alpha's turn to run", async () => (await chat.$eval("#send", (b) => b.textContent)) !== "Send", 10000);
    await wb.shot("alpha-header");
  }],
  ["beta-from-chat-button", async (wb, r) => {
    const chat = await wb.chat();
    await chat.click("#bar .new-worktree");
    // The name alpha is taken: said under the field as it is typed, and nothing is made.
    await quickInput(wb, "alpha", { title: "New Worktree Session", list: false });
    r.taken = await until("the input box to refuse a taken name", () =>
      wb.page.evaluate(() => document.querySelector(".quick-input-widget .quick-input-message")?.textContent ?? "").then((t) => (t.includes("exists already") ? t : null)), 10000);
    await wb.shot("taken-name");
    await wb.page.keyboard.down("Control");
    await wb.page.keyboard.press("a");
    await wb.page.keyboard.up("Control");
    await wb.page.keyboard.type("beta");
    await until("the message gone", () => wb.page.evaluate(() => !(document.querySelector(".quick-input-widget .quick-input-message")?.textContent ?? "").includes("exists")), 5000);
    await wb.page.keyboard.press("Enter");
    r.tag = await shownWorktree(chat, "beta");
    await wb.prompt("BETA: set b to 30 in calc.py");
    await waitAnswer(chat, "Beta done.");
    r.betaFile = read(path.join(worktrees.beta, "calc.py"));
    r.alphaBeforeRelease = read(path.join(worktrees.alpha, "calc.py"));
    console.log("SIGNAL release-alpha");
    r.alphaFile = await until("alpha's edit in its worktree", () => {
      const text = read(path.join(worktrees.alpha, "calc.py"));
      return text.includes("b = 20") ? text : null;
    }, 30000);
  }],
  ["isolated", async (wb, r) => {
    const chat = await wb.chat();
    r.rows = await sessionRows(chat);
    await wb.shot("sessions-list");
    await zoom(wb, "sessions-list", { x: 50, y: 60, width: 300, height: 220 });
    // Back to alpha from the list: its turn ended, its answer is there.
    const row = await until("alpha's row", async () => {
      for (const el of await chat.$$(".session-row")) {
        if (await el.evaluate((x) => x.querySelector(".worktree-tag")?.textContent === "worktree: alpha")) return el.$(".session-link");
      }
      return null;
    });
    await row.click();
    await shownWorktree(chat, "alpha");
    await waitAnswer(chat, "Alpha done.");
    r.checkoutDisk = read(checkoutFile);
    r.alphaFile = read(path.join(worktrees.alpha, "calc.py"));
    r.betaFile = read(path.join(worktrees.beta, "calc.py"));
    await wb.openFile("calc.py");
    r.checkoutEditor = await wb.editorText();
    r.checkoutTab = await wb.page.$eval(".tab.active", (t) => t.getAttribute("aria-label"));
    // The session's edit, opened from the chat's review link, is the worktree's file.
    await until("the review link", () => chat.$eval("#review-changes", (b) => !b.hidden), 15000);
    await chat.click("#review-changes");
    r.reviewTab = await until("a tab of alpha's calc.py", async () => {
      const tabs = await wb.page.$$eval(".tabs-container .tab", (ts) => ts.map((t) => ({ label: t.getAttribute("aria-label") ?? "", description: t.querySelector(".label-description")?.textContent ?? "", active: t.classList.contains("active") })));
      return tabs.find((t) => t.active && t.label.includes("calc.py") && `${t.label} ${t.description}`.includes("alpha")) ?? null;
    }, 15000).catch(async (err) => ({ error: String(err), tabs: (await wb.state()).tabs }));
    r.reviewEditor = await wb.editorText().catch(() => "");
    await wb.shot("alpha-file-from-worktree");
  }],
  ["worktrees-list", async (wb, r) => {
    r.rows = await worktreeRows(wb);
    await wb.shot("worktrees-pick");
    await zoom(wb, "worktrees-pick", { x: 390, y: 0, width: 620, height: 200 });
    await closeQuick(wb);
    await worktreeAction(wb, "alpha", "Show Changes");
    r.changesTab = await until("the changes editor", () =>
      wb.page.$$eval(".tabs-container .tab", (tabs) => tabs.map((t) => t.getAttribute("aria-label") ?? "").find((l) => l.includes("alpha: changes")) ?? null), 15000);
    await wb.shot("alpha-changes");
    r.actions = await (async () => {
      await command(wb, "agentls: Worktrees");
      await quickInput(wb, "beta", { title: "agentls Worktrees" });
      const rows = await until("the actions", async () => ((await quickTitle(wb))?.includes("Worktree beta") && (await wb.quickRows()).length >= 4 ? wb.quickRows() : null), 10000);
      await wb.shot("worktree-actions");
      await closeQuick(wb);
      return rows;
    })();
  }],
  ["merge-alpha", async (wb, r) => {
    await worktreeAction(wb, "alpha", "Merge…");
    await quickInput(wb, "Merge", { title: "Merge agentls/alpha" });
    r.notification = await notification(wb, "merged into");
    r.checkoutDisk = read(checkoutFile);
    r.rows = await worktreeRows(wb);
    await closeQuick(wb);
  }],
  ["merge-beta-conflict", async (wb, r) => {
    await worktreeAction(wb, "beta", "Merge…");
    await quickInput(wb, "Merge", { title: "Merge agentls/beta" });
    r.notification = await notification(wb, "Conflicting");
    await wb.shot("beta-conflict");
    r.betaFile = read(path.join(worktrees.beta, "calc.py"));
    await clickNotificationButton(wb, "Conflicting", "Open calc.py");
    r.conflictEditor = await until("the conflict markers in calc.py", async () => {
      const text = await wb.editorText().catch(() => "");
      return text.includes("<<<<<<<") ? text : null;
    }, 15000);
    await wb.shot("beta-conflict-file");
  }],
  ["open-in-new-window", async (wb, r) => {
    await worktreeAction(wb, "beta", "Open in New Window");
    const first = wb.page.target();
    const target = await wb.browser.waitForTarget((t) => t !== first && t.type() === "page" && t.url().includes("folder="), { timeout: 15000 });
    r.url = target.url();
    log("new window", r.url);
    // Close it: a second workbench loading beside the first starved the first page's calls.
    await (await target.page())?.close();
    await wb.page.bringToFront();
  }],
  ["discard-alpha", async (wb, r) => {
    await worktreeAction(wb, "alpha", "Discard…");
    r.dialog = await until("the discard dialog", () => wb.modal(), 10000);
    await wb.shot("discard-dialog");
    await wb.modalButton("Discard");
    r.notification = await notification(wb, "are gone");
    r.alphaExists = fs.existsSync(worktrees.alpha);
    r.worktrees = worktrees;
  }],
];

await runPhases(args, args.mode === "nogit" ? outsideGit : inGit);
