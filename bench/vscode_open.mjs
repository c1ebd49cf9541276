// Drives one run of bench/vscode_open.py in a real VS Code: opens the chat, clicks the long session in
// the session menu and times it to its newest message on screen, then scrolls from the bottom to the
// first message a step per animation frame, recording the longest frame. Prints `RESULT {...}`.
import { Workbench, until } from "../tests/vscode/driver.mjs";

const args = JSON.parse(process.argv[2]);

/** From a trace: the renderer main thread's frames (the thread with the most), their longest CPU time. */
function frameCpu(trace) {
  const frames = new Map();
  for (const e of trace.traceEvents ?? trace) {
    if (e.name !== "ProxyMain::BeginMainFrame" || e.ph !== "X" || e.tdur === undefined) continue;
    const key = `${e.pid}/${e.tid}`;
    if (!frames.has(key)) frames.set(key, []);
    frames.get(key).push(e.tdur / 1000);
  }
  const cpu = [...frames.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  return { maxFrameCpuMs: Math.max(0, ...cpu), framesCpuOver50: cpu.filter((ms) => ms > 50).length };
}
const wb = await Workbench.open(args.url, args.folder, args.shots);
const result = {};
try {
  await wb.command("agentls: Focus Chat");
  const chat = await wb.chat();
  await until("the session list", async () => (await chat.$$(".session-row")).length >= 2, 30000);
  await chat.click(".session-title");
  await until("the session menu", async () => !(await chat.$eval("#sessions", (el) => el.hidden)));
  // Click and wait inside the page: the time is the page's own, from the click to the frame that
  // shows the session's newest message.
  result.clickToReadyMs = await chat.evaluate((title, last) => new Promise((resolve, reject) => {
    const row = [...document.querySelectorAll(".session-row .session-link")].find((b) => b.textContent === title);
    if (!row) return reject(new Error("no row " + title));
    const start = performance.now();
    row.click();
    const scroller = document.getElementById("transcript");
    const check = () => {
      const found = [...scroller.querySelectorAll(".message.assistant")].at(-1);
      const box = scroller.getBoundingClientRect();
      if (found && found.textContent.includes(last) && found.getBoundingClientRect().top < box.bottom) resolve(performance.now() - start);
      else if (performance.now() - start > 30000) reject(new Error("not shown"));
      else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  }), args.title, args.last);
  await wb.shot("bench-open-ready");
  // With `trace`: a Chromium trace of the scroll, for the main thread's own time per frame (the
  // time the frame's work ran on a core, whatever else the machine was doing).
  if (args.trace) await wb.page.tracing.start({ categories: ["benchmark"] });
  // Scroll up a step per frame until the first message is on screen (older pages load on the way).
  const scroll = await chat.evaluate((first) => new Promise((resolve, reject) => {
    const scroller = document.getElementById("transcript");
    let last = performance.now();
    let maxGap = 0;
    let long = 0;
    const start = last;
    const step = (now) => {
      const gap = now - last;
      maxGap = Math.max(maxGap, gap);
      if (gap > 50) long++;
      last = now;
      const top = [...scroller.querySelectorAll(".message.user")][0];
      if (scroller.scrollTop === 0 && top && top.textContent.includes(first)) return resolve({ maxGap, long, ms: now - start, dom: scroller.querySelectorAll(".message").length });
      // Not there after two minutes: what the frames were so far, marked incomplete.
      if (now - start > 120000) return resolve({ maxGap, long, ms: now - start, dom: scroller.querySelectorAll(".message").length, incomplete: true });
      scroller.scrollTop -= 300;
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }), args.first);
  if (args.trace) Object.assign(result, frameCpu(JSON.parse(new TextDecoder().decode(await wb.page.tracing.stop()))));
  if (scroll.incomplete) result.scrollMs = null;
  result.maxScrollFrameMs = scroll.maxGap;
  result.longFrames = scroll.long;
  result.scrollMs = scroll.ms;
  result.messagesInDom = scroll.dom;
  result.reachedTop = scroll.incomplete !== true;
  await wb.shot("bench-open-top");
  result.ok = true;
} catch (err) {
  result.ok = false;
  result.error = String(err?.stack ?? err);
} finally {
  await wb.close();
}
console.log("RESULT " + JSON.stringify(result));
process.exit(result.ok ? 0 : 1);
