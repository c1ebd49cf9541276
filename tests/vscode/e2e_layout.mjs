// The chat's height while the agent edits (run by test_e2e_layout.py): the user opens calc.py (the
// editor note's chip), attaches six files with "@ Files" (seven chips), sends a prompt; the agent edits
// calc.py in three steps, leaving three pending hunks, and streams a long answer. The browser's own
// LayoutShift entries in the chat are recorded over the turn; the transcript's height is read against
// the side bar's; then "Review 3 changes" in the status line opens the first hunk in the editor.
// Usage: node e2e_layout.mjs '{"url", "folder", "shots", "files"}'
import { chipsText, quickInput, runPhases, until, waitAnswer } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);
let chat = null;

/** Record the chat document's layout shifts from now on (window.__shifts). */
function observeShifts(frame) {
  return frame.evaluate(() => {
    const shifts = [];
    window.__shifts = shifts;
    const name = (node) => (node ? `${node.nodeName.toLowerCase()}${node.id ? `#${node.id}` : ""}${typeof node.className === "string" && node.className ? `.${node.className.split(" ")[0]}` : ""}` : "?");
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        shifts.push({ value: e.value, input: e.hadRecentInput, at: Math.round(e.startTime), sources: (e.sources ?? []).map((s) => name(s.node)).slice(0, 4) });
      }
    }).observe({ type: "layout-shift" });
  });
}

await runPhases(args, [
  ["chips", async (wb, r) => {
    await wb.openFile("calc.py");
    chat = await wb.focusChat();
    await until("the model picker to fill", () => chat.$eval("#model-picker", (el) => el.options.length > 0));
    await until("the editor note's chip", async () => (await chipsText(chat)).some((c) => c.startsWith("✎ calc.py")), 20000);
    for (const file of args.files) {
      const before = (await chipsText(chat)).length;
      await chat.click('button[aria-label="Attach files"]');
      await quickInput(wb, file, { placeholder: "Files to attach" });
      await until(`the chip of ${file}`, async () => (await chipsText(chat)).length > before, 10000);
    }
    r.chips = await chipsText(chat);
    await wb.shot("seven-chips");
  }],
  ["after-turn", async (wb, r) => {
    r.chipsBefore = await chipsText(chat);
    await observeShifts(chat);
    await chat.evaluate(() => {
      const t = document.getElementById("transcript");
      window.__scrolls = [];
      t.addEventListener("scroll", () => window.__scrolls.push([Math.round(performance.now()), t.scrollTop, t.scrollHeight, t.clientHeight]));
    });
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Change b, d and h in calc.py");
    await wb.page.keyboard.press("Enter");
    await waitAnswer(chat, "line 24 of the summary");
    r.pendingLabel = await until("Review 3 changes in the status line", async () => {
      const label = await chat.$eval("#review-changes", (b) => (b.hidden ? "" : b.textContent));
      return label === "Review 3 changes" ? label : null;
    }, 20000);
    // A frame for anything the last event moved, then the shifts.
    await chat.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const shifts = await chat.evaluate(() => window.__shifts);
    r.shifts = shifts.filter((s) => s.value >= 0.001);
    r.shift = shifts.filter((s) => !s.input).reduce((sum, s) => sum + s.value, 0);
    r.shiftAll = shifts.reduce((sum, s) => sum + s.value, 0);
    r.transcript = await chat.$eval("#transcript-box", (el) => el.getBoundingClientRect().height);
    // The view follows the answer: its end is on screen when the turn is over.
    r.scroll = await chat.evaluate(() => {
      const t = document.getElementById("transcript");
      return { fromBottom: t.scrollHeight - t.scrollTop - t.clientHeight, jumpShown: !document.getElementById("jump-latest").hidden, events: window.__scrolls.slice(-12) };
    });
    r.sidebar = await wb.page.$eval(".part.sidebar", (el) => el.getBoundingClientRect().height);
    r.sidebarPanes = (await wb.page.$$eval(".part.sidebar .pane-header", (hs) => hs.map((h) => h.textContent ?? ""))).join(" | ");
    await wb.shot("after-turn");
  }],
  ["review-from-chat", async (wb, r) => {
    await chat.click("#review-changes");
    r.activeTab = await until("calc.py in front", () => wb.page.$eval(".tab.active", (t) => t.getAttribute("aria-label") ?? "").catch(() => null), 10000);
    r.lenses = await until("Keep | Undo above the three hunks", async () => ((await wb.lenses()).length === 6 ? wb.lenses() : null), 20000);
    r.position = await until("the cursor on the first hunk", async () => {
      const status = await wb.page.$$eval(".statusbar-item", (items) => items.map((i) => i.textContent).find((t) => /Ln \d+/.test(t ?? "")) ?? "");
      return status.includes("Ln 2,") ? status : null;
    }, 10000).catch(async () => wb.page.$$eval(".statusbar-item", (items) => items.map((i) => i.textContent).find((t) => /Ln \d+/.test(t ?? "")) ?? ""));
    await wb.shot("review-from-chat");
  }],
  ["busy-row", async (wb, r) => {
    // A second turn waits on a command's permission while the three hunks still wait for review: the
    // status line holds Working…, Queue · Steer · Stop and send and Review 3 changes at once.
    chat = await wb.focusChat();
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Run the tests");
    await wb.page.keyboard.press("Enter");
    await chat.waitForSelector(".dialog.permission", { timeout: 30000 });
    await until("the busy buttons", () => chat.$eval(".busy-actions", (el) => !el.hidden), 10000);
    r.row = await chat.evaluate(() => {
      const status = document.getElementById("status").getBoundingClientRect();
      const inside = (el) => {
        const b = el.getBoundingClientRect();
        return b.width > 0 && b.left >= status.left - 0.5 && b.right <= status.right + 0.5 && b.top >= status.top - 0.5 && b.bottom <= status.bottom + 0.5;
      };
      const shown = [...document.querySelectorAll("#status button")].filter((b) => !b.hidden && b.offsetParent !== null);
      const text = document.getElementById("status-text");
      return {
        buttons: shown.map((b) => ({ label: b.textContent, inside: inside(b), clipped: b.scrollWidth > b.clientWidth + 1 })),
        text: text.textContent,
        textWidth: text.getBoundingClientRect().width,
        width: status.width,
        height: status.height,
      };
    });
    await wb.shot("busy-row");
    await chat.click('.dialog.permission [data-action="once"]');
    await waitAnswer(chat, "The tests ran.");
  }],
]);
