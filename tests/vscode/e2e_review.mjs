// Reviewing the agent's changes in a real VS Code (run by test_e2e_review.py): in Ask mode the agent
// edits calc.py and the user edits the proposal and allows it: kept, nothing left to review. Then the
// user switches the session to Auto-accept; the agent edits calc.py twice more, the user types at the
// top of the file between the turns and at its end after them; the hunks show in the editor (gutter, line background, CodeLens Keep | Undo) in the light,
// dark and high-contrast themes, and in the Changes view with a badge; Undo by CodeLens keeps the
// user's line; Keep from the Changes view; 200 hunks listed and kept from the view's title; a
// sub-agent's edit listed in the parent's Changes view as its ("by @general: set j").
// Usage: node e2e_review.mjs '{"url", "folder", "shots", "trace"}'
import * as fs from "node:fs";
import * as path from "node:path";
import { log, quickInput, runPhases, until, waitAnswer } from "./driver.mjs";
import { zoomed } from "./pixels.mjs";

const args = JSON.parse(process.argv[2]);
const THEMES = { light: ["Light Modern", "vs"], dark: ["Dark Modern", "vs-dark"], hc: ["Dark High Contrast", "hc-black"] };

function traceEvents() {
  if (!fs.existsSync(args.trace)) return [];
  return fs.readFileSync(args.trace, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

class Scenario {
  constructor(wb) {
    this.wb = wb;
    this.page = wb.page;
    this.chat = null;
  }

  async prompt(words) {
    await this.wb.command("agentls: Focus Chat");
    this.chat = await this.wb.chat();
    await until("the model picker to fill", () => this.chat.$eval("#model-picker", (el) => el.options.length > 0));
    await this.chat.click("#prompt-input");
    await this.chat.type("#prompt-input", words);
    await this.page.keyboard.press("Enter");
  }

  async dialog(previous) {
    return until("a permission dialog", async () => {
      const id = await this.chat.$eval(".dialog.permission", (el) => el.dataset.request).catch(() => null);
      return id && id !== previous ? id : null;
    }, 30000);
  }

  async allow(id) {
    await this.chat.click(`.dialog.permission[data-request="${id}"] [data-action="once"]`);
    await until("the dialog to close", async () => (await this.chat.$(`.dialog.permission[data-request="${id}"]`)) === null);
  }

  async waitIdle(timeout = 30000) {
    await until("the turn to end", async () => (await this.chat.$eval("#send", (b) => b.textContent)) === "Send", timeout);
  }

  lenses() {
    return this.wb.lenses();
  }

  /** Lines with a decoration in the glyph margin (our gutter bar or removal marker). */
  gutterMarks() {
    return this.page.$$eval(".editor-instance .cgmr", (els) => els.length);
  }

  changesRows() {
    return this.wb.changesRows();
  }

  badge() {
    return this.wb.reviewBadge();
  }

  async setTheme(name) {
    const [label, cls] = THEMES[name];
    if (await this.page.$(`.monaco-workbench.${cls}`)) return;
    const title = "Preferences: Color Theme";
    await this.wb.openQuickInput("F1", title, title, 20000);
    await until("the Color Theme command", async () => {
      const row = await this.page.evaluateHandle((t) => [...document.querySelectorAll(".quick-input-list .monaco-list-row")].find((r) => (r.getAttribute("aria-label") ?? "").startsWith(t) && !(r.getAttribute("aria-label") ?? "").includes("Browse")) ?? null, title);
      if (!row.asElement()) return false;
      await row.asElement().click();
      return true;
    }, 10000);
    await until("the theme picker", async () => (await this.wb.quickRows()).some((row) => row.startsWith("Light Modern")), 10000);
    await this.page.keyboard.type(label);
    await until(`the picker to list ${label}`, async () => (await this.wb.quickRows()).some((row) => row.startsWith(label)), 10000);
    await this.page.keyboard.press("Enter");
    await until(`the ${name} theme`, () => this.page.$(`.monaco-workbench.${cls}`), 20000);
    await this.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  }

  /** The editor's first lines (gutter, CodeLens, backgrounds), zoomed 2×. */
  async zoomShot(name) {
    // The editor part's box once it holds still (a theme change lays the workbench out again).
    let box = null;
    await until("the editor to hold still", async () => {
      // The visible code editor (closed or hidden ones stay in the page with a stale box).
      const now = await this.page.evaluate(() => {
        const editors = [...document.querySelectorAll(".editor-instance .monaco-editor:not(.original-in-monaco-diff-editor)")]
          .map((e) => e.getBoundingClientRect())
          .filter((r) => r.width > 0 && r.height > 0)
          .sort((a, b) => b.width * b.height - a.width * a.height);
        const r = editors[0];
        return r ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
      });
      const same = now && box && JSON.stringify(now) === JSON.stringify(box);
      box = now;
      return same;
    }, 10000, 200);
    this.wb.shotCount += 1;
    const file = path.join(args.shots, `${String(this.wb.shotCount).padStart(2, "0")}-${name}.png`);
    fs.writeFileSync(file, await this.page.screenshot({ type: "png", clip: { x: box.x, y: box.y, width: Math.min(box.width, 560), height: Math.min(box.height, 300), scale: 2 } }));
    log("screenshot", file);
  }

  focusChanges() {
    return this.wb.focusChanges();
  }

  /** Click the inline action `title` of the Changes view row whose label holds `label`. */
  async rowAction(label, title) {
    const row = await until(`the Changes row ${label}`, async () => {
      const rows = await this.page.$$(".pane-body .monaco-list-row");
      for (const r of rows) if (((await r.evaluate((el) => el.getAttribute("aria-label") ?? el.textContent)) ?? "").includes(label)) return r;
      return null;
    });
    await row.hover();
    const action = await until(`the ${title} action`, () => row.$(`.actions .action-label[aria-label^="${title}"]`));
    await action.click();
  }
}

const phases = [];
const phase = (name, fn) => phases.push([name, fn]);

phase("agent-edits", async (s, r) => {
  const { wb, page } = s;
  const keys = page.keyboard;
  await wb.openFile("calc.py");
  await s.prompt("Change b in calc.py");
  // The proposal opens editable next to the file: the user makes b 200 instead of 20, then allows.
  const first = await s.dialog();
  await s.chat.click(`.dialog.permission[data-request="${first}"] [data-action="diff"]`);
  const line = await until("the proposed line in the diff's editable side", async () => {
    for (const l of await page.$$(".monaco-diff-editor .editor.modified .view-line")) {
      if ((await l.evaluate((e) => e.textContent.replace(/\u00a0/g, " "))) === "b = 20") return l;
    }
    return null;
  });
  await line.click();
  await keys.press("End");
  await keys.type("0");
  await until("the proposal edited", async () => (await page.$$eval(".monaco-diff-editor .editor.modified .view-line", (ls) => ls.map((l) => l.textContent.replace(/\u00a0/g, " ")))).includes("b = 200"));
  await wb.shot("proposal-edited");
  await s.allow(first);
  await s.waitIdle();
  r.diffTabs = await until("the proposal's tab closed", async () => ((await page.$$(".tab[aria-label*='proposed']")).length === 0 ? [] : null), 10000).catch(() => "still open");
  // The user allowed what they read: the session's list of pending changes is empty.
  r.approvedReviewShown = await s.chat.$eval("#review-changes", (b) => !b.hidden);
  // From now on the agent edits without asking (the palette's Set Mode, then the quick pick).
  await wb.command("agentls: Set Mode (Ask, Auto-accept, Read-only)");
  await quickInput(wb, "Auto-accept", { placeholder: "Ask before edits" });
  await until("Auto-accept in the chat's mode picker", () => s.chat.$eval("#mode-picker", (el) => el.value === "auto"), 10000);
  await s.prompt("Change c in calc.py");
  // The answer, not only Send: right after Enter the button still says Send, before the turn starts.
  await waitAnswer(s.chat, "Changed c.");
  await wb.openFile("calc.py");
  // Only c's change waits (one Keep | Undo pair): b's, allowed in its dialog, is not asked about again.
  r.afterAuto = await until("Keep | Undo above c's change", async () => ((await s.lenses()).length === 2 ? s.lenses() : null), 20000);
  r.afterAutoText = await wb.editorText();
  // Between the agent's edits the user types a line at the top of calc.py and saves it.
  await wb.openFile("calc.py");
  await wb.focusEditor();
  await keys.down("Control");
  await keys.press("Home");
  await keys.up("Control");
  await keys.type("# mine");
  await keys.press("Enter");
  await keys.down("Control");
  await keys.press("s");
  await keys.up("Control");
  await until("calc.py saved with the typed line", () => fs.readFileSync(path.join(args.folder, "calc.py"), "utf8").startsWith("# mine"));
  await s.prompt("Now change h");
  await waitAnswer(s.chat, "Changed h.");
  // And after them a line at the end, left unsaved.
  await wb.openFile("calc.py");
  await wb.focusEditor();
  await keys.down("Control");
  await keys.press("End");
  await keys.up("Control");
  await keys.type("# unsaved");
  await keys.press("Enter");
  r.text = await until("both agent edits and both typed lines", async () => {
    const t = await wb.editorText();
    return t.includes("b = 200") && t.includes("c = 30") && t.includes("h = 80") && t.includes("# unsaved") ? t : null;
  });
  r.text = r.text.replace(/\n*$/, "\n");
  r.dirty = await wb.dirtyTabs();
});

phase("marked", async (s, r) => {
  const { wb } = s;
  r.lenses = await until("Keep | Undo above both hunks", async () => {
    const l = await s.lenses();
    return l.filter((t) => t.endsWith("Keep")).length === 2 && l.filter((t) => t.endsWith("Undo")).length === 2 ? l : null;
  }, 20000);
  r.gutter = await until("the gutter marks", async () => ((await s.gutterMarks()) >= 2 ? s.gutterMarks() : null));
  for (const theme of ["dark", "hc", "light"]) {
    await s.setTheme(theme);
    await wb.openFile("calc.py");
    await until("the CodeLens again", async () => (await s.lenses()).length === 4);
    await s.zoomShot(`hunks-${theme}`);
  }
  await s.setTheme("dark");
  await s.focusChanges();
  r.rows = await until("calc.py and its two hunks in the Changes view", async () => {
    const rows = await s.changesRows();
    return rows.some((x) => x.includes("calc.py")) && rows.filter((x) => x.includes("line")).length >= 2 ? rows : null;
  });
  r.badge = await until("the pending badge", () => s.badge());
  await wb.shot("changes-view");
});

phase("undo-by-codelens", async (s, r) => {
  const { wb, page } = s;
  await wb.openFile("calc.py");
  const undo = await until("the first Undo lens", async () => {
    const links = await page.$$(".codelens-decoration a");
    for (const a of links) if ((await a.evaluate((e) => e.textContent.trim())).endsWith("Undo")) return a;
    return null;
  });
  await undo.click();
  r.text = await until("c back to 3, both typed lines, b = 200 and h = 80 still there", async () => {
    const t = await wb.editorText();
    return t.includes("c = 3\n") && !t.includes("c = 30") && t.includes("b = 200") && t.startsWith("# mine") && t.includes("h = 80") && t.includes("# unsaved") ? t : null;
  });
  r.text = r.text.replace(/\n*$/, "\n");
  r.lenses = await until("one hunk left", async () => ((await s.lenses()).length === 2 ? s.lenses() : null));
  await wb.shot("undone-by-codelens");
});

phase("navigate", async (s, r) => {
  const { wb, page } = s;
  await wb.openFile("calc.py");
  await wb.focusEditor();
  await page.keyboard.down("Control");
  await page.keyboard.press("Home");
  await page.keyboard.up("Control");
  await page.keyboard.down("Alt");
  await page.keyboard.press("F5");
  await page.keyboard.up("Alt");
  r.position = await until("the cursor on h = 80", async () => {
    const status = await page.$$eval(".statusbar-item", (items) => items.map((i) => i.textContent).find((t) => /Ln \d+/.test(t ?? "")) ?? "");
    return status.includes("Ln 9,") ? status : null;
  });
});

phase("comment", async (s, r) => {
  const { wb, page } = s;
  // The cursor is on h = 80, a pending hunk: a review comment there, then Submit Review.
  await wb.command("Add Comment on Current Selection");
  const input = await until("the comment box", () => page.$(".review-widget .comment-form .monaco-editor, .review-widget .comment-form textarea"), 10000);
  await input.click();
  await page.keyboard.type("Why 80? Use a named constant.");
  await until("the typed comment", () => page.$$eval(".review-widget .comment-form", (els) => els.some((e) => e.textContent.replace(/\u00a0/g, " ").includes("Why 80?"))), 5000);
  const add = await until("the Add Review Comment button", async () => {
    for (const b of await page.$$(".review-widget .monaco-button")) {
      if ((await b.evaluate((e) => e.textContent)).includes("Add Review Comment")) return b;
    }
    return null;
  });
  await add.click();
  await until("the draft comment", () => traceEvents().find((e) => e.event === "reviewCommentAdded"));
  r.thread = await until("the comment in the thread", async () => {
    const texts = await page.$$eval(".review-widget .review-comment", (els) => els.map((e) => e.textContent.replace(/\u00a0/g, " ")));
    return texts.some((t) => t.includes("Why 80?")) ? texts : null;
  });
  await wb.shot("review-comment-draft");
  await s.focusChanges();
  const submit = await wb.changesAction("Submit Review");
  await submit.click();
  await until("the review submitted", () => traceEvents().find((e) => e.event === "reviewSubmitted"));
  s.chat = await wb.chat();
  await until("the agent's answer to the review", async () => (await s.chat.$$eval(".message.assistant", (els) => els.map((e) => e.textContent).join("\n"))).includes("80 is the limit"), 30000);
  await s.waitIdle();
  await wb.shot("review-answered");
});

phase("keep-from-changes-view", async (s, r) => {
  await s.focusChanges();
  await s.rowAction("line", "Keep Agent Change");
  r.rows = await until("no hunk left in the view", async () => ((await s.changesRows()).length === 0 ? [] : null));
  r.badge = await s.badge();
  await s.wb.openFile("calc.py");
  r.lenses = await until("no CodeLens left", async () => ((await s.lenses()).length === 0 ? [] : null));
  r.kept = traceEvents().filter((e) => e.event === "reviewKept").map((e) => e.changed.length);
  await s.wb.shot("kept-from-changes-view");
});

phase("two-hundred", async (s, r) => {
  const { wb } = s;
  await s.prompt("Rewrite big.py");
  await waitAnswer(s.chat, "Rewritten.");
  await s.focusChanges();
  // The file's row ("big.py … 200 changes"), not one of its hunks' ("big.py: line 226").
  r.rows = await until("big.py with 200 changes", async () => (await s.changesRows()).find((x) => x.includes("big.py") && x.includes("200 changes")) ?? null);
  await wb.openFile("big.py");
  await until("the CodeLens in big.py", async () => (await s.lenses()).length >= 2);
  // The review list read afresh (a server restart lists it again), then every figure the extension traced.
  const seen = traceEvents().length;
  await wb.command("agentls: Restart Server");
  await until("the list of 200 hunks after the restart", () => traceEvents().slice(seen).find((e) => e.event === "reviewList" && e.hunks === 200), 60000);
  const events = traceEvents();
  const ms = (name) => events.filter((e) => e.event === name && (e.hunks ?? e.pending ?? 0) >= 200).map((e) => e.ms ?? 0);
  r.listMs = ms("reviewList");
  r.decoratedMs = events.filter((e) => e.event === "reviewDecorated" && e.hunks >= 200).map((e) => e.ms);
  await wb.shot("two-hundred-hunks");
  await s.focusChanges();
  const keepAll = await wb.changesAction("Keep All Agent Changes");
  const before = traceEvents().length;
  await keepAll.click();
  r.kept = await until("every hunk kept", () => traceEvents().slice(before).find((e) => e.event === "reviewKept")?.changed.length, 30000);
  r.after = await until("an empty Changes view", async () => ((await s.changesRows()).length === 0 ? [] : null));
});

phase("sub-agent", async (s, r) => {
  // A foreground sub-agent's edit: a hunk of its session, listed in the parent's Changes view with whose it is.
  await s.prompt("Delegate setting j");
  await waitAnswer(s.chat, "Delegated.");
  await s.focusChanges();
  r.rows = await until("the sub-agent's hunk in the Changes view", async () => {
    const rows = await s.changesRows();
    return rows.some((x) => x.includes("by @general")) ? rows : null;
  });
  await s.wb.shot("sub-agent-hunk");
});

await runPhases(args, phases, (wb) => new Scenario(wb));
