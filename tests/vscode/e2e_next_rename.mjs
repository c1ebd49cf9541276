// Next edits that replace text, in a real VS Code (run by test_e2e_next_edits.py): main.py is open;
// the agent renames send()'s parameter `msg` to `text` in util.py. With agentls.nextEdits on, the
// cursor on main.py's next call shows the extension's inline edit (`msg` struck through, `text`
// beside it: ghost text cannot remove characters), Tab accepts it in one undo step and it joins the
// agent's review; at the other call, Escape and typing dismiss it. Off (`args.off`): the same moves
// show nothing and ask no model.
// Usage: node e2e_next_rename.mjs '{"url": ..., "folder": ..., "shots": ..., "off": false}'
import path from "node:path";
import { runPhases, until, waitAnswer } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

// What the editor shows of an inline edit: the struck-through text, and the text drawn after it
// (a decoration's `after` content: CSS generated content, so read from the computed style).
const inlineEdit = (wb) =>
  wb.page.$$eval(".editor-instance .monaco-editor:not(.original-in-monaco-diff-editor) .view-lines .view-line span", (els) => {
    const struck = [];
    const added = [];
    for (const e of els) {
      if (e.children.length === 0 && getComputedStyle(e).textDecorationLine.includes("line-through") && e.textContent.trim()) struck.push(e.textContent);
      const after = getComputedStyle(e, "::after").content;
      if (after && after !== "none" && after !== "normal") added.push(after.replace(/^"|"$/g, ""));
    }
    return { struck, added };
  });
const shownEdit = async (wb) => {
  const seen = await inlineEdit(wb);
  return seen.struck.length && seen.added.length ? seen : null;
};

async function goTo(wb, where) {
  await wb.focusEditor();
  await wb.page.keyboard.down("Control");
  await wb.page.keyboard.press("g");
  await wb.page.keyboard.up("Control");
  await until("the go-to-line box", () => wb.page.$(".quick-input-widget:not([style*='display: none']) input"));
  await wb.page.keyboard.type(where);
  await wb.page.keyboard.press("Enter");
}

async function chord(wb, key, ...mods) {
  for (const m of mods) await wb.page.keyboard.down(m);
  await wb.page.keyboard.press(key);
  for (const m of mods.reverse()) await wb.page.keyboard.up(m);
}

/** The first lines of the editor, zoomed 2×, to look at as a reader. */
async function zoomed(wb, name) {
  // From a little left of the editor (the side bar beside it may still be settling its width).
  const box = await wb.page.$eval(".editor-instance .monaco-editor:not(.original-in-monaco-diff-editor)", (el) => {
    const r = el.getBoundingClientRect();
    const x = Math.max(0, r.x - 140);
    return { x, y: r.y, width: Math.min(r.right - x, 560), height: 100 };
  });
  wb.shotCount += 1;
  const file = path.join(args.shots, `${String(wb.shotCount).padStart(2, "0")}-zoom-${name}.png`);
  await wb.page.screenshot({ path: file, clip: { ...box, scale: 2 } });
  return file;
}

const lineOf = (text, n) => text.split("\n")[n - 1];

const phases = [
  ["change", async (wb) => {
    await wb.openFile("main.py");
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Rename send's msg parameter to text");
    await wb.page.keyboard.press("Enter");
    await waitAnswer(chat, "Renamed.");
    await wb.openFile("main.py");
  }],
];

if (!args.off) {
  phases.push(
    ["suggest", async (wb, r) => {
      await goTo(wb, "3:7"); // in `msg` of send(msg="hi")
      r.shown = await until("the inline edit at line 3", () => shownEdit(wb), 30000, 200);
      r.ghost = await wb.page.$$eval(".editor-instance .monaco-editor [class*='ghost-text']", (els) => els.map((e) => e.textContent));
      await wb.shot("suggested");
      r.zoom = await zoomed(wb, "suggested");
      await wb.page.keyboard.press("Tab");
      r.accepted = await until("the accepted edit", async () => {
        const text = await wb.editorText();
        return lineOf(text, 3) === 'send(text="hi")' ? text : null;
      }, 10000);
      r.afterAccept = await inlineEdit(wb);
      await wb.shot("accepted");
      await chord(wb, "z", "Control"); // one undo step takes the whole edit back
      r.undone = await until("the undone edit", async () => {
        const text = await wb.editorText();
        return lineOf(text, 3) !== 'send(text="hi")' ? text : null;
      }, 10000);
      await chord(wb, "z", "Control", "Shift"); // and redo it
      r.redone = await until("the redone edit", async () => {
        const text = await wb.editorText();
        return lineOf(text, 3) === 'send(text="hi")' ? text : null;
      }, 10000);
    }],
    ["review", async (wb, r) => {
      // The accepted edit joined the agent's review: two changes, with Keep/Undo lenses in main.py.
      const chat = await wb.chat();
      r.review = await until("the review of two changes", async () => {
        const text = await chat.$eval("#review-changes", (el) => el.textContent.trim()).catch(() => "");
        return text === "Review 2 changes" ? text : null;
      }, 20000);
      r.lenses = await until("the review lenses in main.py", async () => ((await wb.lenses()).length ? await wb.lenses() : null), 20000);
      await goTo(wb, "3:1");
      await wb.command("agentls: Undo Agent Change at Cursor");
      r.undone = await until("the hunk undone", async () => {
        const text = await wb.editorText();
        return lineOf(text, 3) === 'send(msg="hi")' ? text : null;
      }, 20000);
      r.after = await until("the review of one change", async () => {
        const text = await chat.$eval("#review-changes", (el) => el.textContent.trim()).catch(() => "");
        return text === "Review 1 change" ? text : null;
      }, 20000);
      // The pending change left is util.py's: main.py's lenses go.
      r.lensesAfter = await until("no review lens left in main.py", async () => ((await wb.lenses()).length === 0 ? [] : null), 20000);
      await wb.shot("review-undone");
    }],
    ["dismiss", async (wb, r) => {
      await goTo(wb, "4:6"); // before `msg` of send(msg="bye", loud=True)
      await until("the inline edit at line 4", () => shownEdit(wb), 30000, 200);
      await wb.page.keyboard.press("Escape");
      r.escaped = await until("no inline edit after Escape", async () => {
        const seen = await inlineEdit(wb);
        return seen.struck.length === 0 && seen.added.length === 0 ? seen : null;
      }, 10000);
      await goTo(wb, "3:1");
      await goTo(wb, "4:6"); // back on the line: shown again
      r.before = await until("the inline edit at line 4 again", () => shownEdit(wb), 30000, 200);
      await wb.page.keyboard.type("z");
      r.after = await until("no inline edit once the user types", async () => {
        const seen = await inlineEdit(wb);
        return seen.struck.length === 0 && seen.added.length === 0 ? seen : null;
      }, 10000);
      r.text = await wb.editorText();
      await wb.shot("dismissed");
      r.zoom = await zoomed(wb, "dismissed");
    }],
  );
} else {
  phases.push(["off", async (wb, r) => {
    await goTo(wb, "3:7");
    await wb.page.keyboard.type("z");
    // The quick fixes at the site: the server answered after it had the keystroke; nothing of next
    // edits is among them (off, the server offers none and asks no model).
    await chord(wb, "Period", "Control");
    r.actions = await until("the code action menu or its 'no actions' message", async () => {
      const rows = await wb.page.$$eval(".action-widget .action-list-item, .action-widget .monaco-list-row, .context-view .monaco-list-row", (els) => els.map((e) => e.textContent.trim()));
      const none = await wb.page.$$eval(".monaco-editor-overlaymessage, .action-widget", (els) => els.map((e) => e.textContent.trim()).filter(Boolean));
      return rows.length || none.length ? { rows, none } : null;
    }, 15000, 200);
    await wb.page.keyboard.press("Escape");
    r.shown = await inlineEdit(wb);
    r.text = await wb.editorText();
    await wb.shot("off");
  }]);
}

await runPhases(args, phases);
