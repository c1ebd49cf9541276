// The mode of a new chat before its first prompt (run by test_e2e_newmode.py): a workspace with no
// session opens an empty chat whose Mode picker already shows (Ask, the documented default) while no
// session is stored, not even after a window reload; the user clicks the picker and picks Plan with
// the keys (that choice makes the session), then sends a first prompt, which runs in plan mode (the
// scripted edit is refused). "New Chat" afterwards shows an empty chat in Plan and stores nothing.
// Usage: node e2e_newmode.mjs '{"url", "folder", "shots"}'
import { runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

/** The header's mode picker as the chat shows it, and the sessions its list holds. */
function modePicker(chat) {
  return chat.evaluate(() => {
    const mode = document.getElementById("mode-picker");
    return {
      shown: !mode.closest(".picker").hidden && !document.getElementById("controls").hidden,
      value: mode.value,
      label: mode.selectedOptions[0]?.textContent ?? "",
      messages: document.querySelectorAll("#transcript .message").length,
      sessions: document.querySelectorAll(".session-row").length,
      title: document.querySelector(".session-title")?.textContent ?? "",
    };
  });
}

const shownPicker = (chat, what, want = () => true) =>
  until(what, async () => {
    const p = await modePicker(chat);
    return p.shown && want(p) ? p : null;
  }, 30000);

await runPhases(args, [
  ["empty", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    r.picker = await shownPicker(chat, "the Mode picker in the empty chat");
    await wb.shot("empty-chat-mode");
  }],
  ["reload", async (wb, r) => {
    // The sessions list is read from the server again: a session the empty chat had stored shows here.
    const reloaded = wb.page.waitForNavigation({ waitUntil: "domcontentloaded", timeout: 30000 });
    await wb.command("Developer: Reload Window");
    await reloaded;
    await wb.page.waitForSelector(".monaco-workbench", { timeout: 30000 });
    const chat = await wb.chat(40000);
    r.picker = await shownPicker(chat, "the Mode picker after the reload");
    await wb.shot("empty-chat-after-reload");
  }],
  ["plan-first", async (wb, r) => {
    const chat = await wb.chat();
    // A click on the picker, then the keys: Ask → Auto-accept → Plan.
    await chat.click("#mode-picker");
    await wb.page.keyboard.press("ArrowDown");
    await wb.page.keyboard.press("ArrowDown");
    await wb.page.keyboard.press("Enter");
    // The choice makes the session, in Plan from the start.
    r.picked = await shownPicker(chat, "Plan in the picker, in a stored session", (p) => p.value === "plan" && p.sessions === 1);
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Change hello to bye in hello.py");
    await wb.page.keyboard.press("Enter");
    await until("the answer", async () => (await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"))).includes("PLANNED-ONLY"), 60000);
    await wb.waitIdle(chat);
    r.after = await modePicker(chat);
    r.dialogs = await chat.$$eval(".dialog.permission", (els) => els.length);
    await wb.shot("plan-first-turn");
  }],
  ["new-chat", async (wb, r) => {
    await wb.command("agentls: New Session");
    const chat = await wb.chat();
    // An empty chat again, in the mode the project chose last; nothing stored until it is used.
    r.picker = await shownPicker(chat, "the empty new chat", (p) => p.messages === 0 && p.value === "plan");
    await wb.shot("new-chat");
  }],
]);
