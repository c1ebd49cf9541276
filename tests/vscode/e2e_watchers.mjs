// Another front end of the agent host on the session the chat shows (run by test_e2e_watchers.py):
// the chat's status line says "also open in Neovim", the edit dialog Neovim answers closes with a
// notification saying so, and the status line drops Neovim when it leaves. `SIGNAL attach|answer|leave`
// let the test's front end (a real attach to the same host, named Neovim) act at each step.
// Usage: node e2e_watchers.mjs '{"url", "folder", "shots"}'
import { log, runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

const statusText = (chat) => chat.$eval("#status-text", (el) => el.textContent);

await runPhases(args, [
  ["dialog", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "fix calc.py");
    await wb.page.keyboard.press("Enter");
    await chat.waitForSelector(".dialog.permission", { timeout: 60000 });
    r.statusAlone = await statusText(chat);
    await wb.shot("dialog-alone");
  }],
  ["also-open", async (wb, r) => {
    const chat = await wb.chat();
    console.log("SIGNAL attach");
    r.status = await until("the status line to name Neovim", async () => {
      const text = await statusText(chat);
      return text.includes("also open in Neovim") ? text : null;
    }, 60000);
    await wb.shot("also-open-in-neovim");
  }],
  ["answered-elsewhere", async (wb, r) => {
    const chat = await wb.chat();
    console.log("SIGNAL answer");
    await until("the dialog to close", async () => (await chat.$(".dialog.permission")) === null, 60000);
    r.notifications = await until("the notification", async () => {
      const shown = (await wb.notifications()).filter((n) => n.includes("answered in"));
      return shown.length > 0 ? shown : null;
    }, 30000);
    await until("the answer", async () => (await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"))).includes("Fixed."), 60000);
    await wb.shot("answered-in-neovim");
  }],
  ["left", async (wb, r) => {
    const chat = await wb.chat();
    console.log("SIGNAL leave");
    r.status = await until("the status line without Neovim", async () => {
      const text = await statusText(chat);
      return text.includes("also open") ? null : text;
    }, 60000);
    log("status after Neovim left:", r.status);
    await wb.shot("neovim-left");
  }],
]);
