// A permission dialog is answered only by a deliberate act on it (run by test_e2e_trust.py): a real
// VS Code with the extension, the real server and a fake model that asks to run a bash command. While
// the dialog waits in the chat the user presses F1 and types a command name (then Escape: changed their
// mind), and types plain text in an editor (then Escape); the dialog must still be waiting. Then the user
// answers it with the keyboard on the dialog itself (Tab to "Allow once", Enter) and the command runs.
// Usage: node e2e_trust.mjs '{"url": ..., "folder": ..., "shots": ...}'
import { runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);
const TYPING = { delay: 25 }; // a fast typist, key by key

/** What the chat shows: the open permission dialogs, where its focus is, the prompt's text, tool cards. */
async function chatState(wb) {
  const chat = await wb.chat();
  return chat.evaluate(() => ({
    dialogs: [...document.querySelectorAll(".dialog.permission")].map((d) => d.dataset.request),
    focus: `${document.activeElement?.tagName}.${document.activeElement?.className}`,
    prompt: document.getElementById("prompt-input")?.value ?? null,
    cards: [...document.querySelectorAll(".tool")].map((e) => e.textContent.replace(/\s+/g, " ").trim().slice(0, 160)),
  }));
}

/** Record the keys the chat's page receives from now on (key @ the element that had the focus). */
function recordKeys(chat) {
  return chat.evaluate(() => {
    window.__keys = [];
    document.addEventListener("keydown", (e) => window.__keys.push(`${e.key}@${document.activeElement?.tagName}.${document.activeElement?.className}`), true);
  });
}

await runPhases(args, [
  ["arrives", async (wb, r) => {
    // The user sends the prompt, goes to the editor and opens the palette; the dialog appears while they
    // type a command name in it. The keys must stay in the palette; Escape then closes the palette only.
    await wb.openFile("notes.txt");
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Print the word, please.");
    await wb.page.keyboard.press("Enter");
    await until("the turn to start", async () => (await chat.$eval("#send", (b) => b.textContent)) !== "Send", 10000);
    await wb.openFile("notes.txt");
    await wb.focusEditor();
    await wb.page.keyboard.press("F1");
    await wb.page.waitForSelector(".quick-input-widget input:focus", { visible: true, timeout: 10000 });
    await wb.page.keyboard.type("View: Toggle", TYPING);
    await recordKeys(chat);
    console.log("SIGNAL release-call"); // the model now asks for the command: the dialog appears
    await chat.waitForSelector(".dialog.permission", { timeout: 30000 });
    await wb.page.keyboard.type(" Word Wrap", TYPING);
    r.palette = (await wb.state()).quickInput;
    await wb.shot("trust-arrived-while-typing");
    await wb.page.keyboard.press("Escape");
    Object.assign(r, await chatState(wb));
    r.chatKeys = await chat.evaluate(() => window.__keys);
  }],
  ["dialog", async (wb, r) => {
    // The user goes to the chat and clicks the dialog's text: the dialog has the focus.
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    await chat.click(".dialog.permission .dialog-title");
    await until("the dialog to have the focus", () => chat.evaluate(() => document.activeElement?.classList.contains("permission")), 5000);
    Object.assign(r, await chatState(wb));
    await wb.shot("trust-dialog");
  }],
  ["palette", async (wb, r) => {
    // F1 pressed while the chat (its dialog) has the focus, as a user does, then a command name typed
    // at once and Escape: the palette is dismissed, nothing was meant for the dialog.
    await wb.page.keyboard.press("F1");
    await wb.page.keyboard.type("Toggle Word Wrap", TYPING);
    r.palette = (await wb.state()).quickInput;
    await wb.shot("trust-palette");
    await wb.page.keyboard.press("Escape");
    Object.assign(r, await chatState(wb));
  }],
  ["editor", async (wb, r) => {
    await wb.openFile("notes.txt");
    await wb.focusEditor();
    await wb.page.keyboard.type("typed while the dialog waits", TYPING);
    await wb.page.keyboard.press("Enter");
    await wb.page.keyboard.press("Escape");
    await until("the typed text in the editor", async () => (await wb.editorText()).includes("typed while the dialog waits"), 5000);
    Object.assign(r, await chatState(wb));
    await wb.shot("trust-editor");
  }],
  ["answer", async (wb, r) => {
    const chat = await wb.chat();
    r.before = await chatState(wb);
    if (r.before.dialogs.length !== 1) throw new Error(`the dialog was answered without the user: ${JSON.stringify(r.before)}`);
    // Keys on the dialog itself answer it: click its text (the dialog takes the focus), Tab, Enter.
    await chat.click(".dialog.permission .dialog-body");
    await wb.page.keyboard.press("Tab");
    r.focused = await chat.evaluate(() => document.activeElement?.dataset?.action ?? null);
    if (r.focused !== "once") throw new Error(`Tab from the dialog reached ${r.focused}, not "Allow once"`);
    await wb.page.keyboard.press("Enter");
    const [first] = r.before.dialogs;
    await until("the dialog to close", async () => !(await chatState(wb)).dialogs.includes(first), 10000);
    Object.assign(r, await chatState(wb));
    await wb.shot("trust-answered");
  }],
  ["in-chat", async (wb, r) => {
    // The model asks again while the user is in the chat (the prompt box has the focus after the
    // answer): this dialog takes the focus, so the keyboard reaches it at once.
    const chat = await wb.chat();
    await until("the second dialog", async () => (await chatState(wb)).dialogs.length === 1, 30000);
    await until("the second dialog to have the focus", () => chat.evaluate(() => document.activeElement?.classList.contains("permission")), 5000);
    r.focusedDialog = await chat.evaluate(() => document.activeElement?.dataset.request);
    await chat.click('.dialog.permission [data-action="once"]');
    await until("the answer after the commands", async () => {
      const text = await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"));
      return text.includes("Printed it.");
    }, 30000);
    Object.assign(r, await chatState(wb));
    await wb.shot("trust-in-chat");
  }],
]);
