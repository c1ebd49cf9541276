// Reviewing the agent's changes after the user edited them (run by test_e2e_conflict.py): the agent
// changes b and h in calc.py; the user types three lines above them and the Changes view's labels move
// with the editor's marks; then the user edits the agent's lines and undoes each hunk: the conflict
// dialog offers Compare (the two versions side by side, then the dialog again), Keep Mine, Use Original
// and Cancel, and each does what it says.
// Usage: node e2e_conflict.mjs '{"url", "folder", "shots"}'
import { runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

const keys = (wb) => wb.page.keyboard;
async function chord(wb, modifier, key) {
  await keys(wb).down(modifier);
  await keys(wb).press(key);
  await keys(wb).up(modifier);
}

/** The Undo CodeLenses of the visible editor, top of the screen first: [{top, link}]. */
async function undoLenses(wb) {
  const lenses = [];
  for (const link of await wb.page.$$(".codelens-decoration a")) {
    const seen = await link.evaluate((e) => ({ text: e.textContent.trim(), top: e.getBoundingClientRect().top })).catch(() => null);
    if (seen?.text.endsWith("Undo")) lenses.push({ top: seen.top, link });
  }
  return lenses.sort((a, b) => a.top - b.top);
}

/** Click the topmost Undo CodeLens of the visible editor (the first pending hunk). */
async function undoFirst(wb) {
  await wb.openFile("calc.py");
  // The topmost on screen, not the first in the page: the lenses' elements are in the order they
  // were drawn, and after typing they are drawn again (the marks follow it), one by one — on a busy
  // machine h's lens came first and h was undone instead of b. Click once they hold still (the same
  // places twice in a row), inside the wait: a lens found a moment before may be gone.
  let last = null;
  await until("an Undo lens clicked", async () => {
    const lenses = await undoLenses(wb);
    const places = JSON.stringify(lenses.map((l) => l.top));
    const still = places === last;
    last = places;
    if (!still || lenses.length === 0) return false;
    return lenses[0].link.click().then(() => true, () => false);
  });
  return until("the conflict dialog", () => wb.modal(), 15000);
}

/** Replace the end of 0-based line `line` of calc.py: Backspace `cut` times, then type `text`. */
async function retype(wb, line, cut, text) {
  await wb.openFile("calc.py");
  await wb.focusEditor();
  await chord(wb, "Control", "Home");
  for (let i = 0; i < line; i++) await keys(wb).press("ArrowDown");
  await keys(wb).press("End");
  for (let i = 0; i < cut; i++) await keys(wb).press("Backspace");
  await keys(wb).type(text);
}

const hunkRows = async (wb) => (await wb.changesRows()).filter((row) => /\bline\b/.test(row));

await runPhases(args, [
  ["edits", async (wb, r) => {
    await wb.openFile("calc.py");
    const chat = await wb.prompt("Change b and h in calc.py");
    await wb.waitIdle(chat);
    await wb.openFile("calc.py");
    r.lenses = await until("Keep | Undo above both hunks", async () => ((await wb.lenses()).length === 4 ? wb.lenses() : null), 20000);
  }],
  ["labels-follow", async (wb, r) => {
    await wb.focusChanges();
    r.before = await until("both hunks in the Changes view", async () => ((await hunkRows(wb)).length === 2 ? hunkRows(wb) : null));
    await wb.openFile("calc.py");
    await wb.focusEditor();
    await chord(wb, "Control", "Home");
    await keys(wb).type("# one\n# two\n# three\n");
    await until("the typed lines", async () => (await wb.editorText()).startsWith("# one\n# two\n# three\na = 1"), 5000);
    r.after = await until("the labels at the marks' new lines", async () => {
      const rows = await hunkRows(wb);
      return rows.some((x) => x.includes("line 5")) && rows.some((x) => x.includes("line 11")) ? rows : null;
    }, 10000).catch(async () => ({ stale: await hunkRows(wb) }));
    await wb.shot("conflict-labels-moved");
    if (!Array.isArray(r.after)) throw new Error(`the Changes view still labels the hunks ${JSON.stringify(r.after.stale)}`);
  }],
  ["compare-then-cancel", async (wb, r) => {
    await retype(wb, 4, 1, "1"); // b = 20 → b = 21
    await until("b = 21 in the editor", async () => (await wb.editorText()).includes("b = 21"), 5000);
    r.dialog = await undoFirst(wb);
    await wb.shot("conflict-dialog");
    await wb.modalButton("Compare");
    r.compareTab = await until("the comparison tab", () =>
      wb.page.$$eval(".tabs-container .tab", (tabs) => tabs.map((t) => t.getAttribute("aria-label") ?? "").find((l) => l.includes("yours now")) ?? null), 10000);
    r.again = await until("the dialog again after Compare", () => wb.modal(), 10000);
    await wb.shot("conflict-compare");
    await wb.modalButton("Cancel");
    await until("the dialog gone", async () => (await wb.modal()) === null, 5000);
    await wb.openFile("calc.py");
    r.text = await wb.editorText();
    r.lenses = await until("both hunks still pending", async () => ((await wb.lenses()).length === 4 ? wb.lenses() : null), 10000);
  }],
  ["keep-mine", async (wb, r) => {
    await undoFirst(wb);
    await wb.modalButton("Keep Mine");
    r.lenses = await until("one hunk left", async () => ((await wb.lenses()).length === 2 ? wb.lenses() : null), 10000);
    r.text = await wb.editorText();
  }],
  ["use-original", async (wb, r) => {
    await retype(wb, 10, 1, "1"); // h = 80 → h = 81
    await until("h = 81 in the editor", async () => (await wb.editorText()).includes("h = 81"), 5000);
    r.dialog = await undoFirst(wb);
    await wb.modalButton("Use Original");
    r.text = await until("h back to 8", async () => {
      const t = await wb.editorText();
      return /^h = 8$/m.test(t) ? t : null;
    }, 10000);
    r.lenses = await until("no hunk left", async () => ((await wb.lenses()).length === 0 ? [] : null), 10000);
    await wb.shot("conflict-resolved");
  }],
]);
