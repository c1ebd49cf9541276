// Talking to the agent while it works (run by test_e2e_chat.py): a real VS Code with the extension and
// the real server. During a long streamed answer the user queues two messages, edits one, steers the
// running turn with a third and removes the second; a message queued behind a turn that ends on a
// rejected permission gets its own answer. Then the `/` menu, the mode and effort pickers, and the
// notifications. The driver prints "SIGNAL <name>" when the Python side must act (release the stalled
// answer), and waits for what the user would see.
// Usage: node e2e_chat.mjs '{"url": ..., "folder": ..., "shots": ...}'
import * as fs from "node:fs";
import { Workbench, log, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

/** The transcript as [role, text] rows, for the Python side to check the order of answers. */
function transcript(chat) {
  return chat.$$eval(".message", (els) => els.map((e) => [e.classList.contains("user") ? "user" : "assistant", e.textContent.replace(/\s+/g, " ").trim().slice(0, 120)]));
}

function queued(chat) {
  return chat.$$eval("#queue .queued", (els) => els.map((e) => ({ text: e.querySelector(".queued-text")?.textContent ?? "", label: e.getAttribute("aria-label") })));
}

/** What has the keyboard focus inside the chat view. */
function focused(chat) {
  return chat.evaluate(() => document.activeElement?.id || document.activeElement?.className || document.activeElement?.tagName);
}

/** The side bar alone (the chat view), at twice the pixels, to read the controls in. */
async function shotSidebar(wb, name) {
  const box = await (await wb.page.$(".part.sidebar")).boundingBox();
  const file = `${args.shots}/zoom-${name}.png`;
  await wb.page.screenshot({ path: file, clip: { ...box, scale: 2 } });
  log("screenshot", file);
}

async function typeInPrompt(chat, text) {
  await chat.type("#prompt-input", text);
}

async function idle(chat, timeout = 60000) {
  await until("the turn to end", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Send", timeout);
}

async function transcriptHas(chat, text, timeout = 60000) {
  return until(`the transcript to show "${text}"`, async () => {
    const rows = await transcript(chat);
    return rows.some(([, t]) => t.includes(text)) ? rows : null;
  }, timeout);
}

const phases = [
  ["queue", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await typeInPrompt(chat, "Write a long essay about rivers");
    await wb.page.keyboard.press("Enter");
    await until("the answer to stream", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Stop" && (await transcript(chat)).some(([role, t]) => role === "assistant" && t.includes("Rivers")), 60000);
    r.busyButtons = await chat.$$eval(".busy-actions button", (bs) => bs.filter((b) => b.offsetParent !== null).map((b) => b.textContent));
    r.placeholder = await chat.$eval("#prompt-input", (el) => el.placeholder);
    // Queue two messages with Enter, the keys staying in the box.
    await typeInPrompt(chat, "first queued");
    await wb.page.keyboard.press("Enter");
    await until("one queued message", async () => (await queued(chat)).length === 1);
    await typeInPrompt(chat, "second queued");
    await wb.page.keyboard.press("Enter");
    await until("two queued messages", async () => (await queued(chat)).length === 2);
    r.focusAfterQueue = await focused(chat);
    r.promptAfterQueue = await chat.$eval("#prompt-input", (el) => el.value);
    await wb.shot("queue-two-queued");
    // Edit the first in place: Enter saves.
    await chat.click("#queue .queued:nth-child(1) .queued-edit");
    await chat.waitForSelector("#queue .queued-input");
    r.focusInEditor = await focused(chat);
    await chat.evaluate(() => document.querySelector("#queue .queued-input").select());
    await chat.type("#queue .queued-input", "first queued, edited");
    await wb.shot("queue-editing");
    await wb.page.keyboard.press("Enter");
    await until("the edit to show", async () => (await queued(chat))[0]?.text === "first queued, edited");
    r.focusAfterEdit = await focused(chat);
    // Steer the running turn with a third (Ctrl+Enter): it goes into the transcript at once.
    await typeInPrompt(chat, "steer: mention deltas");
    await wb.page.keyboard.down("Control");
    await wb.page.keyboard.press("Enter");
    await wb.page.keyboard.up("Control");
    await transcriptHas(chat, "steer: mention deltas", 20000);
    // Remove the second.
    await chat.click("#queue .queued:nth-child(2) .queued-remove");
    await until("one queued message left", async () => (await queued(chat)).length === 1);
    r.focusAfterRemove = await focused(chat);
    r.queue = await queued(chat);
    r.removeLabel = await chat.$eval("#queue .queued-remove", (b) => b.getAttribute("aria-label"));
    await wb.shot("queue-steered-and-removed");
    await shotSidebar(wb, "queue-steered-and-removed");
    console.log("SIGNAL release-essay");
    await transcriptHas(chat, "ANSWER-QUEUED-ONE", 90000);
    await idle(chat);
    await until("the queue to empty", async () => (await queued(chat)).length === 0);
    r.transcript = await transcript(chat);
    await wb.shot("queue-answered");
  }],
  ["rejected", async (wb, r) => {
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await typeInPrompt(chat, "Write notes.txt please");
    await wb.page.keyboard.press("Enter");
    await chat.waitForSelector(".dialog.permission", { timeout: 30000 });
    // The dialog took the focus; the user goes back to the box and queues the next message.
    await chat.click("#prompt-input");
    await typeInPrompt(chat, "after the rejection");
    await wb.page.keyboard.press("Enter");
    await until("the message queued behind the dialog", async () => (await queued(chat)).length === 1);
    await wb.shot("rejected-queued-behind-dialog");
    await chat.click('.dialog.permission [data-action="reject"]');
    await transcriptHas(chat, "ANSWER-AFTER-REJECT", 60000);
    await idle(chat);
    r.transcript = await transcript(chat);
    r.queue = await queued(chat);
    await wb.shot("rejected-answered");
  }],
  ["slash", async (wb, r) => {
    const chat = await wb.chat();
    const menu = () => chat.evaluate(() => {
      const m = document.getElementById("slash-menu");
      const input = document.getElementById("prompt-input");
      return {
        open: !m.hidden,
        items: [...m.querySelectorAll(".slash-item")].map((e) => e.dataset.name),
        texts: [...m.querySelectorAll(".slash-item")].map((e) => e.textContent),
        active: m.querySelector(".slash-item.active")?.dataset.name,
        activeSelected: m.querySelector(".slash-item.active")?.getAttribute("aria-selected"),
        errors: [...m.querySelectorAll(".slash-error")].map((e) => e.textContent),
        expanded: input.getAttribute("aria-expanded"),
        descendant: input.getAttribute("aria-activedescendant"),
        activeId: m.querySelector(".slash-item.active")?.id,
        value: input.value,
      };
    });
    // Empty the box as a user would, one Backspace per character (the caret is at the end).
    const clear = async () => {
      const n = await chat.$eval("#prompt-input", (el) => el.value.length);
      for (let i = 0; i < n; i++) await wb.page.keyboard.press("Backspace");
      await until("an empty prompt box", async () => (await chat.$eval("#prompt-input", (el) => el.value)) === "", 5000);
    };
    await chat.click("#prompt-input");
    await typeInPrompt(chat, "/");
    r.opened = await until("the menu with the user's command", async () => {
      const m = await menu();
      return m.open && m.items.includes("audit") ? m : null;
    });
    await wb.shot("slash-menu");
    await shotSidebar(wb, "slash-menu");
    await typeInPrompt(chat, "a");
    r.filtered = await until("the menu filtered", async () => {
      const m = await menu();
      return m.items.slice(0, 2).join() === "audit,agent" ? m : null;
    });
    await wb.page.keyboard.press("ArrowDown");
    r.afterDown = await menu();
    await wb.page.keyboard.press("ArrowUp");
    r.afterUp = await menu();
    await wb.shot("slash-filtered");
    await shotSidebar(wb, "slash-filtered");
    await wb.page.keyboard.press("Enter");
    r.afterEnter = await menu();
    await typeInPrompt(chat, "calc.py");
    await wb.page.keyboard.press("Enter");
    await transcriptHas(chat, "ANSWER-REVIEW", 60000);
    await idle(chat);
    r.transcript = await transcript(chat);
    // Escape closes the menu and leaves the text (it stops no turn).
    await typeInPrompt(chat, "/comp");
    await until("the menu", async () => (await menu()).open);
    await wb.page.keyboard.press("Escape");
    r.afterEscape = await menu();
    // Tab completes the name.
    await clear();
    await typeInPrompt(chat, "/comp");
    await until("the menu", async () => (await menu()).open);
    await wb.page.keyboard.press("Tab");
    r.afterTab = await menu();
    r.focusAfterTab = await focused(chat);
    // The mouse: a click on /new starts a new session.
    await clear();
    await typeInPrompt(chat, "/");
    // Once the server's list is in (the rows are redrawn when it arrives).
    await until("the menu with the server's list", async () => (await menu()).items.includes("audit"));
    // Point at the row, check the pointer is on it (the row under the pointer is what a user sees
    // highlighted by :hover), then press the button there.
    await until("the pointer on /new", async () => {
      // A short view shows part of the menu: scroll the row into sight, as a user would.
      await chat.$eval('.slash-item[data-name="new"]', (el) => el.scrollIntoView({ block: "nearest" }));
      const box = await (await chat.$('.slash-item[data-name="new"]')).boundingBox();
      await wb.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      return chat.evaluate(() => document.querySelector(".slash-item:hover")?.dataset.name === "new");
    }, 10000);
    await wb.page.mouse.down();
    await wb.page.mouse.up();
    await until("a new, empty session", async () => (await transcript(chat)).length === 0, 20000);
    r.afterClick = await menu();
    r.focusAfterClick = await focused(chat);
    await wb.shot("slash-new-session");
  }],
  ["notify", async (wb, r) => {
    const chat = await wb.chat();
    /** The activity bar's badges, by item: the chat view's count shows on its container's icon. */
    const badges = () => wb.page.evaluate(() => [...document.querySelectorAll(".activitybar .action-item")].map((item) => ({
      label: item.querySelector(".action-label")?.getAttribute("aria-label") ?? "",
      badge: item.querySelector(".badge-content")?.textContent ?? "",
      shown: item.querySelector(".badge")?.style.display !== "none",
    })).filter((b) => /agentls/i.test(b.label)));
    const toasts = () => wb.page.$$eval(".notification-toast .notification-list-item-message, .notifications-toasts .notification-list-item-message", (els) => els.map((e) => e.textContent));
    r.notificationsBefore = (await wb.notifications()).filter((n) => n.includes("agentls"));
    await chat.click("#prompt-input");
    await typeInPrompt(chat, "Tell me a story");
    await wb.page.keyboard.press("Enter");
    await until("the story to stream", async () => (await transcript(chat)).some(([role, t]) => role === "assistant" && t.includes("Once upon")), 60000);
    await typeInPrompt(chat, "then write todo.txt");
    await wb.page.keyboard.press("Enter");
    await until("the message queued", async () => (await queued(chat)).length === 1);
    // The user goes to the Explorer: the chat view is hidden. (Out of the view first: the palette
    // helper presses Escape, which in the view stops the turn.)
    await wb.leaveWebview();
    await wb.command("View: Show Explorer");
    await until("the Explorer", () => wb.page.$(".part.sidebar .explorer-folders-view, .part.sidebar .explorer-viewlet"), 10000);
    r.badgeWhileHidden = await badges();
    console.log("SIGNAL release-story");
    await until("two notifications: the turn ended, a dialog waits", async () => {
      const n = (await wb.notifications()).filter((m) => m.startsWith("agentls: the"));
      return n.some((m) => m.includes("ended")) && n.some((m) => m.includes("waits for your answer")) ? n : null;
    }, 60000);
    r.notifications = (await wb.notifications()).filter((m) => m.startsWith("agentls: the"));
    r.badge = await until("the badge to count both", async () => {
      const b = await badges();
      return b.some((x) => x.badge === "2" && x.shown) ? b : null;
    }, 10000);
    await wb.shot("notify-hidden-view");
    // "Open Chat" on the dialog's notification brings the view back, with the dialog.
    const opened = await wb.page.evaluateHandle(() => {
      const items = [...document.querySelectorAll(".notification-list-item")];
      const item = items.find((i) => i.querySelector(".notification-list-item-message")?.textContent?.includes("waits for your answer"));
      return [...(item?.querySelectorAll(".monaco-button") ?? [])].find((b) => b.textContent === "Open Chat") ?? null;
    });
    if (!opened.asElement()) throw new Error("no Open Chat button on the dialog's notification");
    await opened.asElement().click();
    const back = await wb.chat();
    await back.waitForSelector(".dialog.permission", { timeout: 20000 });
    r.badgeWithView = await until("the badge to count the waiting dialog only", async () => {
      const b = await badges();
      return b.some((x) => x.badge === "1" && x.shown) ? b : null;
    }, 10000);
    await wb.shot("notify-back-in-view");
    await back.click('.dialog.permission [data-action="once"]');
    await transcriptHas(back, "ANSWER-WROTE", 60000);
    await idle(back);
    // The chat's part of the badge is gone; the Changes view's count of the hunk written stays
    // (the activity bar shows the container's badge, labelled with the view's own tooltip).
    r.badgeAfter = await until("no badge of the chat's", async () => {
      const b = await badges();
      return b.every((x) => !x.shown || x.badge === "" || !/waiting for your answer|finished/.test(x.label)) ? b : null;
    }, 10000);
    r.notificationsAfter = (await wb.notifications()).filter((m) => m.startsWith("agentls: the"));
    r.toasts = await toasts();
  }],
  ["notify-off", async (wb, r) => {
    // The user turns agentls.notifications off for this workspace (Settings (JSON)).
    const chat = await wb.chat();
    const traced = (event) => fs.readFileSync(args.trace, "utf8").split("\n").filter((l) => l.includes(`"event":"${event}"`)).map((l) => JSON.parse(l));
    fs.mkdirSync(`${args.folder}/.vscode`, { recursive: true });
    fs.writeFileSync(`${args.folder}/.vscode/settings.json`, JSON.stringify({ "agentls.notifications": false }, null, 2));
    await until("the setting to reach the extension", () => traced("notificationsSetting").some((e) => e.enabled === false), 20000);
    const before = (await wb.notifications()).length;
    const ended = traced("turnEnded").length;
    const told = traced("notification").length;
    const counted = traced("badge").length;
    await chat.click("#prompt-input");
    await typeInPrompt(chat, "One more story");
    await wb.page.keyboard.press("Enter");
    await until("the story to stream", async () => (await transcript(chat)).some(([role, t]) => role === "assistant" && t.includes("Twice upon")), 60000);
    await wb.leaveWebview();
    await wb.command("View: Show Explorer");
    await until("the Explorer", () => wb.page.$(".part.sidebar .explorer-folders-view, .part.sidebar .explorer-viewlet"), 10000);
    console.log("SIGNAL release-story-2");
    const last = await until("the turn to end while hidden", () => {
      const t = traced("turnEnded");
      return t.length > ended ? t[t.length - 1] : null;
    }, 60000);
    r.endedWhileHidden = last.visible === false || last.focused === false;
    // What the extension did about it (the trace is written as it acts, before anything is drawn).
    r.toldSince = traced("notification").slice(told);
    r.badgeCountsSince = traced("badge").slice(counted).map((e) => e.count);
    r.newNotifications = (await wb.notifications()).slice(before).filter((m) => m.startsWith("agentls"));
    r.badges = await wb.page.evaluate(() => [...document.querySelectorAll(".activitybar .action-item")].filter((i) => /agentls/i.test(i.querySelector(".action-label")?.getAttribute("aria-label") ?? "")).map((i) => ({
      label: i.querySelector(".action-label")?.getAttribute("aria-label") ?? "",
      badge: i.querySelector(".badge")?.style.display !== "none" ? i.querySelector(".badge-content")?.textContent ?? "" : "",
    })));
    await wb.shot("notify-off-hidden");
  }],
  ["controls", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    const controls = () => chat.evaluate(() => {
      const mode = document.getElementById("mode-picker");
      const effort = document.getElementById("effort-picker");
      return {
        mode: mode.value,
        modes: [...mode.options].map((o) => `${o.value}:${o.textContent}`),
        modeShown: !mode.closest(".picker").hidden,
        modeLabel: mode.getAttribute("aria-label"),
        effort: effort.value,
        levels: [...effort.options].map((o) => o.value),
        effortShown: !effort.closest(".picker").hidden,
      };
    });
    const pick = async (title, row) => {
      await wb.leaveWebview();
      await wb.command(title);
      // Its own rows, not the palette's ("agentls: Set Mode (Ask, Auto-accept, Read-only)") while it closes.
      await until(`the quick pick to offer ${row}`, async () => (await wb.quickRows()).some((l) => l.startsWith(row)), 10000);
      await wb.page.keyboard.type(row);
      await wb.page.keyboard.press("Enter");
    };
    r.initial = await until("the pickers in the header", async () => {
      const c = await controls();
      return c.modeShown && c.effortShown ? c : null;
    }, 20000);
    await shotSidebar(wb, "controls-initial");
    // Keys on the header's mode picker: Ask → Auto-accept; an edit then needs no dialog.
    await chat.focus("#mode-picker");
    await wb.page.keyboard.press("ArrowDown");
    r.afterKey = await until("auto", async () => ((await controls()).mode === "auto" ? controls() : null), 10000);
    await chat.click("#prompt-input");
    await typeInPrompt(chat, "Write auto.txt");
    await wb.page.keyboard.press("Enter");
    await transcriptHas(chat, "ANSWER-AUTO", 60000);
    await idle(chat);
    r.dialogs = await chat.$$eval(".dialog.permission", (els) => els.length);
    // The palette: agentls: Set Mode → Read-only; the header follows the server's session.mode.
    await pick("agentls: Set Mode", "Read-only");
    r.afterPalette = await until("plan in the header", async () => ((await controls()).mode === "plan" ? controls() : null), 10000);
    // /effort high in the prompt, then the palette's Set Effort → low.
    await chat.click("#prompt-input");
    await typeInPrompt(chat, "/effort high");
    await wb.page.keyboard.press("Enter");
    r.afterSlash = await until("high in the header", async () => ((await controls()).effort === "high" ? controls() : null), 10000);
    await pick("agentls: Set Effort", "low");
    r.afterEffortPalette = await until("low in the header", async () => ((await controls()).effort === "low" ? controls() : null), 10000);
    await shotSidebar(wb, "controls-plan-low");
    await wb.shot("controls-plan-low");
    await chat.click("#prompt-input");
    await typeInPrompt(chat, "How hard do you think?");
    await wb.page.keyboard.press("Enter");
    await transcriptHas(chat, "ANSWER-EFFORT", 60000);
    await idle(chat);
  }],
  ["interrupt", async (wb, r) => {
    // Stop and send: the running answer stops and the new message runs at once.
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await typeInPrompt(chat, "Count to a thousand");
    await wb.page.keyboard.press("Enter");
    await until("the count to stream", async () => (await transcript(chat)).some(([role, t]) => role === "assistant" && t.includes("One two")), 60000);
    await typeInPrompt(chat, "stop, say hi instead");
    await chat.click("#send-interrupt");
    await transcriptHas(chat, "ANSWER-INTERRUPT", 60000);
    await idle(chat);
    r.transcript = await transcript(chat);
    r.stopped = await chat.$$eval(".message.assistant .stopped", (els) => els.length);
    r.focusAfter = await focused(chat);
    r.queue = await queued(chat);
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
        if (!process.env.AGENTLS_E2E_KEEP_GOING) break;
      }
      r.ok = result.failed !== name;
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
