// The chat of a VS Code whose agent runs in a remote agent host (run by test_e2e_remote_host.py):
// `agentls.host: remote`, `agentls.hostAddress` and `agentls.hostTokenFile` in the settings, the
// host listening on TCP (`agentls host serve --tcp`). A prompt is answered there; `SIGNAL status`
// lets the test ask that host who is attached while the chat is open.
// Usage: node e2e_remote.mjs '{"url", "folder", "shots"}'
import { runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

await runPhases(args, [
  ["answered", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "who answers?");
    await wb.page.keyboard.press("Enter");
    r.answer = await until("the answer", async () => {
      const text = await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"));
      return text.includes("remote host") ? text : null;
    }, 60000);
    r.notifications = await wb.notifications();
    await wb.shot("answered-by-the-remote-host");
  }],
  ["status", async () => {
    console.log("SIGNAL status");
  }],
]);
