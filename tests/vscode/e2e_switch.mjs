// Switching between a 100- and a 1,000-message session (run by test_e2e_switch.py): each switch is a
// click on the session title, then on the other session's row; the page measures, from the row's
// click, when the session's last answer sits at the bottom of the transcript and stays there for
// three frames. Before every other switch the user scrolls up a little (the view stops following).
// Usage: node e2e_switch.mjs '{"url", "folder", "shots", "sessions": [{title, last}], "switches"}'
import { runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

/** In the chat frame: from the next click on a session row, the ms until `last` holds at the bottom. */
function armLatest(last) {
  window.__switch = new Promise((resolve) => {
    document.addEventListener("click", (event) => {
      if (!event.target.closest?.(".session-link")) return;
      const start = performance.now();
      let held = 0;
      const step = () => {
        const scroller = document.getElementById("transcript");
        const answer = [...scroller.querySelectorAll(".message.assistant")].at(-1);
        const box = scroller.getBoundingClientRect();
        const ok = answer?.textContent.includes(last) && scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 2 && Math.abs(answer.getBoundingClientRect().bottom - box.bottom) < 40;
        held = ok ? held + 1 : 0;
        if (held === 3) return resolve({ ms: Math.round(performance.now() - start), atBottom: true });
        if (performance.now() - start > 5000) {
          return resolve({ ms: Math.round(performance.now() - start), atBottom: false, fromBottom: scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight, last: answer?.textContent.slice(0, 40) });
        }
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    }, { capture: true, once: true });
  });
}

await runPhases(args, [
  ["switches", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    await until("both sessions listed", async () => (await chat.$$(".session-row")).length >= 2, 30000);
    r.switches = [];
    for (let i = 0; i < args.switches; i++) {
      const { title, last } = args.sessions[i % 2];
      if (i % 2 === 1) {
        // The user scrolls up in the session they leave: following stops there, not in the next one.
        await chat.hover("#transcript");
        await wb.page.mouse.wheel({ deltaY: -600 });
      }
      // The title button is drawn again when a session's title arrives: click one that is there.
      const open = async () => !(await chat.$eval("#sessions", (el) => el.hidden));
      await until("the session menu", async () => {
        if (await open()) return true;
        await chat.click(".session-title").catch(() => null);
        return until("the menu to open", open, 1000).catch(() => false);
      });
      const row = await until(`the row of "${title}"`, async () => {
        for (const link of await chat.$$(".session-row .session-link")) if ((await link.evaluate((b) => b.textContent)) === title) return link;
        return null;
      });
      await chat.evaluate(armLatest, last);
      await row.click();
      r.switches.push({ title, ...(await chat.evaluate(() => window.__switch)) });
      if (i < 2) await wb.shot(`switched-${i}`);
    }
  }],
]);
