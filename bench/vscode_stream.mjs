// Drives one benchmark run in a real VS Code: opens the chat, streams a long answer into it, and
// measures the view's lag while it streams: the gaps between the webview's animation frames (p99,
// longest), its draws, and — from a Chromium trace — each renderer main thread's own CPU time per
// frame (the frame's work, whatever else the machine was doing), and the extension host's CPU time.
// Prints `RESULT {...}`. Run by bench/vscode_stream.py.
import * as fs from "node:fs";
import { Workbench, until } from "../tests/vscode/driver.mjs";

const args = JSON.parse(process.argv[2]);
const TICK_MS = 1000 / 100; // /proc CPU times are in clock ticks (USER_HZ = 100 on Linux)

function percentile(values, p) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * From a trace: each renderer main thread's frame CPU times (ProxyMain::BeginMainFrame's thread
 * duration). The workbench and the chat webview (an out-of-process iframe) each have one; the
 * figures are of the thread whose p99 is worst (the webview's while an answer streams).
 */
function frameCpu(trace) {
  const threads = new Map();
  for (const e of trace.traceEvents ?? trace) {
    if (e.name !== "ProxyMain::BeginMainFrame" || e.ph !== "X" || e.tdur === undefined) continue;
    const key = `${e.pid}/${e.tid}`;
    if (!threads.has(key)) threads.set(key, []);
    threads.get(key).push(e.tdur / 1000);
  }
  let worst = { p99FrameCpuMs: 0, maxFrameCpuMs: 0, framesCpuOver50: 0, tracedFrames: 0 };
  for (const cpu of threads.values()) {
    const p99 = percentile(cpu, 99);
    if (cpu.length >= 10 && p99 >= worst.p99FrameCpuMs) {
      worst = { p99FrameCpuMs: p99, maxFrameCpuMs: Math.max(...cpu), framesCpuOver50: cpu.filter((ms) => ms > 50).length, tracedFrames: cpu.length };
    }
  }
  return worst;
}

function trace() {
  return fs.existsSync(args.trace) ? fs.readFileSync(args.trace, "utf8").trim().split("\n").map((l) => JSON.parse(l)) : [];
}

function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime + stime
}

const wb = await Workbench.open(args.url, args.folder, args.shots);
const result = {};
try {
  // The extension activates on use (its view or a command): Focus Chat starts it and the server.
  const focusAt = Date.now();
  await wb.command("agentls: Focus Chat");
  const init = await until("the server to initialize", () => trace().find((e) => e.event === "serverInitialized"), 30000);
  const activated = trace().find((e) => e.event === "activated");
  result.activationToInitializedMs = init.t - activated.t;
  const ready = await until("the view to be ready", () => trace().find((e) => e.event === "viewReady"), 30000);
  result.focusToViewReadyMs = ready.t - focusAt;
  result.activationToViewReadyMs = ready.t - activated.t;
  const chat = await wb.chat();
  await until("the model picker to fill", () => chat.$eval("#model-picker", (s) => s.options.length > 0));
  // Watch every animation frame of the webview while the answer streams.
  await chat.evaluate(() => {
    const w = window;
    w.benchFrames = { last: performance.now(), maxGap: 0, count: 0, running: true, gaps: [] };
    const tick = (now) => {
      const f = w.benchFrames;
      f.maxGap = Math.max(f.maxGap, now - f.last);
      if (f.count > 0) f.gaps.push(now - f.last);
      f.last = now;
      f.count++;
      if (f.running) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  if (args.chromeTrace) await wb.page.tracing.start({ categories: ["benchmark"] });
  const hostPid = init.extensionHostPid;
  await chat.click("#prompt-input");
  await chat.type("#prompt-input", "Stream the long answer");
  const cpuBefore = cpuMs(hostPid);
  const began = Date.now();
  await wb.page.keyboard.press("Enter");
  await until("the streaming to start", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Stop", 20000, 20);
  await until("the answer to finish", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Send", 300000, 50);
  result.streamMs = Date.now() - began;
  result.hostCpuMs = cpuMs(hostPid) - cpuBefore;
  const frames = await chat.evaluate(() => {
    window.benchFrames.running = false;
    return { frames: window.benchFrames, stats: window.agentlsStats };
  });
  if (args.chromeTrace) Object.assign(result, frameCpu(JSON.parse(new TextDecoder().decode(await wb.page.tracing.stop()))));
  result.maxFrameGapMs = frames.frames.maxGap;
  result.p99FrameGapMs = percentile(frames.frames.gaps, 99);
  result.p50FrameGapMs = percentile(frames.frames.gaps, 50);
  result.animationFrames = frames.frames.count;
  result.draws = frames.stats.frames;
  result.maxDrawMs = frames.stats.maxDrawMs;
  result.maxTranscriptMs = frames.stats.maxTranscriptMs ?? null;
  result.maxScrollMs = frames.stats.maxScrollMs ?? null;
  result.maxChromeMs = frames.stats.maxChromeMs ?? null;
  result.meanDrawMs = frames.stats.totalDrawMs / Math.max(1, frames.stats.frames);
  result.eventsReceived = frames.stats.events;
  result.shownChars = await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("").length);
  await wb.shot("bench-streamed");
  result.ok = true;
} catch (err) {
  result.ok = false;
  result.error = String(err?.stack ?? err);
} finally {
  await wb.close();
}
console.log("RESULT " + JSON.stringify(result));
process.exit(result.ok ? 0 : 1);
