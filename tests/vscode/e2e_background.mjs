// Background work in the chat (run by test_e2e_background.py): a turn starts a background sub-agent
// and a background shell and ends; the pill above the prompt says both run and opens into their
// rows (live step, tool, tokens, time); the user sends the sub-agent a message through the input
// box, stops the shell, stops the sub-agent (its processes die; a notification says it was
// stopped), and opens its transcript.
// Usage: node e2e_background.mjs '{"url", "folder", "shots", "gate", "agentMarker", "shellMarker"}'
import fs from "node:fs";
import { log, runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

/** Command lines of live processes that contain `marker` (as the orphan tests look: by /proc). */
function running(marker) {
  const found = [];
  // Not this driver: its own arguments name the markers.
  for (const pid of fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n) && n !== String(process.pid))) {
    try {
      const line = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      const state = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(")").pop().trim().split(" ")[0];
      if (line.includes(marker) && state !== "Z") found.push(line);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The background pill and its rows as the user sees them. */
function background(chat) {
  return chat.evaluate(() => {
    const box = document.getElementById("background");
    const rows = [...box.querySelectorAll(".background-list > li")].map((li) => ({
      kind: li.classList.contains("background-agent") ? "agent" : "shell",
      name: li.querySelector(".background-name")?.textContent ?? "",
      title: li.querySelector(".background-title")?.textContent ?? "",
      state: li.querySelector(".background-state")?.textContent ?? "",
      buttons: [...li.querySelectorAll("button")].map((b) => b.textContent),
    }));
    return { shown: !box.hidden, open: box.open, pill: box.querySelector("summary")?.textContent ?? "", rows };
  });
}

const clickIn = (chat, selector, label) => chat.evaluate((selector, label) => {
  const button = [...document.querySelectorAll(`${selector} button`)].find((b) => b.textContent === label);
  button.click();
  return true;
}, selector, label);

await runPhases(args, [
  ["roster", async (wb, r) => {
    const chat = await wb.prompt("Start the long job");
    await until("the turn's answer", async () => (await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"))).includes("The job runs in the background."), 30000);
    await wb.waitIdle(chat);
    r.pill = await until("the pill with a sub-agent and a shell", async () => {
      const bg = await background(chat);
      return bg.shown && bg.pill === "1 background agent · 1 shell running" ? bg : null;
    }, 20000);
    await chat.click("#background > summary");
    r.rows = await until("the sub-agent at its waiting step", async () => {
      const bg = await background(chat);
      const agent = bg.rows.find((row) => row.kind === "agent");
      return bg.open && agent?.state.startsWith("step 2, running bash") ? bg.rows : null;
    }, 20000);
    await wb.shot("background-open");
  }],
  ["message", async (wb, r) => {
    const chat = await wb.chat();
    await clickIn(chat, ".background-agent", "Message");
    await wb.page.waitForSelector(".quick-input-widget input", { visible: true, timeout: 10000 });
    r.title = await wb.page.$eval(".quick-input-widget .quick-input-title", (el) => el.textContent);
    await wb.page.keyboard.type("MSG-VS: check the docs too");
    await wb.page.keyboard.press("Enter");
    await until("the input box closed", async () => !(await wb.page.$(".quick-input-widget input:focus")), 10000);
    // Its next step comes when its command ends: open the gate it waits on.
    fs.writeFileSync(args.gate, "open");
    await until("the sub-agent at its next step", async () => {
      const agent = (await background(chat)).rows.find((row) => row.kind === "agent");
      return agent?.state.startsWith("step 3, running bash") ? agent : null;
    }, 20000);
  }],
  ["shell", async (wb, r) => {
    const chat = await wb.chat();
    r.before = running(args.shellMarker).length;
    await clickIn(chat, ".background-shell", "Stop");
    r.row = await until("the shell stopped", async () => {
      const shell = (await background(chat)).rows.find((row) => row.kind === "shell");
      return shell?.state.startsWith("stopped") ? shell : null;
    }, 20000);
    r.after = running(args.shellMarker);
    r.pill = (await background(chat)).pill;
  }],
  ["stop", async (wb, r) => {
    const chat = await wb.chat();
    r.before = running(args.agentMarker).length;
    await clickIn(chat, ".background-agent", "Stop");
    r.row = await until("the sub-agent stopped", async () => {
      const agent = (await background(chat)).rows.find((row) => row.kind === "agent");
      return agent?.state.startsWith("stopped") ? agent : null;
    }, 20000);
    r.after = running(args.agentMarker);
    r.notification = await until("a notification that it was stopped", async () => (await wb.notifications()).find((n) => n.includes("background sub-agent @general")), 20000);
    // Its report reaches the parent, whose turn answers it.
    await until("the parent's answer to the news", async () => (await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"))).includes("Noted: the job was stopped."), 30000);
    r.report = await chat.evaluate(() => {
      const report = document.querySelector(".subagent-report");
      const message = report?.closest(".message");
      return { summary: report?.querySelector("summary")?.textContent ?? "", who: message?.querySelector(".who")?.textContent ?? "", text: report?.querySelector(".user-text")?.textContent ?? "" };
    });
    await wb.shot("background-stopped");
  }],
  ["open", async (wb, r) => {
    const chat = await wb.chat();
    await clickIn(chat, ".background-agent", "Open");
    r.tools = await until("the sub-agent's own transcript", async () => {
      const names = await chat.$$eval(".tool-name", (els) => els.map((e) => e.textContent));
      return names.filter((n) => n === "bash").length >= 3 ? names : null;
    }, 20000);
    await wb.shot("background-transcript");
    log("opened", JSON.stringify(r.tools));
  }],
]);
