// The mode of a new chat before its first prompt (run by test_e2e_newmode.py): a workspace with no
// session opens an empty chat whose Mode picker already shows (Ask, the documented default); the
// user clicks it and picks Plan with the keys, then sends a first prompt, which runs in plan mode (the
// scripted edit is refused). One session exists afterwards: the one the empty chat showed.
// Usage: node e2e_newmode.mjs '{"url", "folder", "shots"}'
import { runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

/** The header's mode picker as the chat shows it. */
function modePicker(chat) {
  return chat.evaluate(() => {
    const mode = document.getElementById("mode-picker");
    return {
      shown: !mode.closest(".picker").hidden && !document.getElementById("controls").hidden,
      value: mode.value,
      label: mode.selectedOptions[0]?.textContent ?? "",
      messages: document.querySelectorAll("#transcript .message").length,
    };
  });
}

await runPhases(args, [
  ["empty", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    r.picker = await until("the Mode picker in the empty chat", async () => {
      const p = await modePicker(chat);
      return p.shown ? p : null;
    }, 30000);
    await wb.shot("empty-chat-mode");
  }],
  ["plan-first", async (wb, r) => {
    const chat = await wb.chat();
    // A click on the picker, then the keys: Ask → Auto-accept → Plan.
    await chat.click("#mode-picker");
    await wb.page.keyboard.press("ArrowDown");
    await wb.page.keyboard.press("ArrowDown");
    await wb.page.keyboard.press("Enter");
    r.picked = await until("Plan in the picker", async () => {
      const p = await modePicker(chat);
      return p.value === "plan" ? p : null;
    }, 10000);
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Change hello to bye in hello.py");
    await wb.page.keyboard.press("Enter");
    await until("the answer", async () => (await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"))).includes("PLANNED-ONLY"), 60000);
    await wb.waitIdle(chat);
    r.after = await modePicker(chat);
    r.sessions = await chat.$$eval(".session-row", (rows) => rows.length);
    r.dialogs = await chat.$$eval(".dialog.permission", (els) => els.length);
    await wb.shot("plan-first-turn");
  }],
]);
