// A long session in the real chat view (run by test_e2e_long.py): it opens on its newest page; an
// older page asked for near the top lands whole while the message at the top of the screen stays
// put; scrolling up reaches the first message with every message once, in order; after that, a new
// prompt still takes the view to the bottom and follows the answer.
// Usage: node e2e_long.mjs '{"url", "folder", "shots", "title", "turns"}'
import { runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

/** Run in the chat frame: the messages in the transcript, the first on screen, the older-row label. */
function look() {
  const scroller = document.getElementById("transcript");
  const box = scroller.getBoundingClientRect();
  const messages = [...scroller.querySelectorAll(".message")];
  // Boxes of the transcript's children, then of the page on screen (reading a box in an older page
  // off screen would make the browser lay it out).
  const onScreen = (el) => el.getBoundingClientRect().bottom > box.top;
  let top = [...scroller.children].find((c) => (c.classList.contains("message") || c.classList.contains("older-page")) && onScreen(c));
  if (top?.classList.contains("older-page")) top = [...top.children].find(onScreen);
  return {
    count: messages.length,
    topId: top?.getAttribute("data-id") ?? null,
    topOffset: top === undefined ? null : top.getBoundingClientRect().top - box.top,
    label: document.getElementById("older").textContent,
    scrollTop: scroller.scrollTop,
  };
}

const s = {};
const phases = [
  ["open", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    s.chat = chat;
    await chat.evaluate(`window.__look = ${look.toString()};`);
    await until("the session list", async () => (await chat.$$(".session-row")).length >= 2, 30000);
    await chat.click(".session-title");
    await until("the session menu", async () => !(await chat.$eval("#sessions", (el) => el.hidden)));
    await chat.evaluate((title) => [...document.querySelectorAll(".session-row .session-link")].find((b) => b.textContent === title).click(), args.title);
    const last = `Answer ${args.turns - 1}:`;
    await until("the newest answer", () => chat.evaluate((last) => [...document.querySelectorAll("#transcript .message.assistant")].at(-1)?.textContent.includes(last), last));
    Object.assign(r, await chat.evaluate(look));
  }],
  ["older-page", async (wb, r) => {
    // Near the top of what is loaded (no further scrolling): the next page is asked for, built and
    // put above. Every frame until it is in: what the view shows.
    r.frames = await s.chat.evaluate(() => new Promise((resolve, reject) => {
      const look = window.__look;
      const scroller = document.getElementById("transcript");
      const before = scroller.querySelectorAll(".message").length;
      // What the live region was set to when a page went in (a screen reader reads what is added
      // to it while it is "polite").
      window.__liveAtPage = [];
      new MutationObserver((records) => {
        for (const record of records) {
          for (const node of record.addedNodes) {
            if (node.classList?.contains("older-page")) window.__liveAtPage.push(scroller.getAttribute("aria-live"));
          }
        }
      }).observe(scroller, { childList: true });
      scroller.scrollTop = 40;
      const frames = [look()];
      const start = performance.now();
      const step = () => {
        const now = look();
        frames.push(now);
        if (now.count > before && frames.filter((f) => f.count === now.count).length >= 3) return resolve(frames);
        if (performance.now() - start > 20000) return reject(new Error(`no page landed: ${JSON.stringify(frames.slice(-3))}`));
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    }));
    r.liveAtPage = await s.chat.evaluate(() => window.__liveAtPage);
    r.liveAfter = await until("the live region back on", () => s.chat.evaluate(() => (document.getElementById("transcript").getAttribute("aria-live") === "polite" ? "polite" : null)), 5000).catch(() => "off");
    await wb.shot("long-older-page");
  }],
  ["top", async (wb, r) => {
    // Up a screen's worth per frame until the first message is at the top.
    r.reached = await s.chat.evaluate(() => new Promise((resolve, reject) => {
      const scroller = document.getElementById("transcript");
      const start = performance.now();
      const step = () => {
        const first = scroller.querySelector(".message.user");
        if (scroller.scrollTop === 0 && first?.textContent.includes("Question 0:")) return resolve(true);
        if (performance.now() - start > 60000) return reject(new Error("the first message never came"));
        scroller.scrollTop -= 300;
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    }));
    Object.assign(r, await s.chat.evaluate(() => {
      const messages = [...document.querySelectorAll("#transcript .message")];
      return {
        ids: messages.map((m) => m.getAttribute("data-id")),
        questions: messages.filter((m) => m.classList.contains("user")).map((m) => m.querySelector(".user-text")?.textContent.split(":")[0]),
        answers: messages.filter((m) => m.classList.contains("assistant")).map((m) => m.querySelector(".md")?.textContent.split(":")[0]),
        label: document.getElementById("older").textContent,
        // The space between each message and the next, inside a page and across a page's edge.
        gaps: [...new Set(messages.slice(1).map((m, i) => Math.round(m.getBoundingClientRect().top - messages[i].getBoundingClientRect().bottom)))],
        pages: document.querySelectorAll("#transcript > .older-page").length,
        liveAtPage: window.__liveAtPage,
      };
    }));
    await wb.shot("long-top");
    // A page's edge on screen, for a reader.
    await s.chat.evaluate(() => {
      const page = document.querySelector("#transcript > .older-page");
      const scroller = document.getElementById("transcript");
      scroller.scrollTop += page.getBoundingClientRect().bottom - scroller.getBoundingClientRect().top - 200;
    });
    await wb.shot("long-page-edge");
  }],
  ["follow", async (wb, r) => {
    const chat = s.chat;
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "one more question");
    await wb.page.keyboard.press("Enter");
    await until("the new answer", () => chat.evaluate(() => [...document.querySelectorAll("#transcript .message.assistant")].at(-1)?.textContent.includes("One more answer.")), 30000);
    await wb.waitIdle(chat);
    await until("the view at the bottom", () => chat.evaluate(() => {
      const scroller = document.getElementById("transcript");
      return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 24;
    }));
    r.lastOnScreen = await chat.evaluate(() => {
      const scroller = document.getElementById("transcript");
      const last = [...scroller.querySelectorAll(".message.assistant")].at(-1);
      return last.getBoundingClientRect().bottom <= scroller.getBoundingClientRect().bottom + 1;
    });
    r.count = await chat.evaluate(() => document.querySelectorAll("#transcript .message").length);
    await wb.shot("long-follow");
  }],
];

await runPhases(args, phases);
