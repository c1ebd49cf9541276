// Next edits in a real VS Code (run by test_e2e_next_edits.py): main.py is open; the agent gives
// send() a new parameter in util.py; the cursor goes to main.py's next call, where the inline
// suggestion (ghost text) proposes the new argument and Tab accepts it; at the other call, typing
// dismisses it.
// Usage: node e2e_next_edits.mjs '{"url": ..., "folder": ..., "shots": ...}'
import { runPhases, until, waitAnswer } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);
const ghost = (wb) =>
  wb.page.$$eval(".editor-instance .monaco-editor [class*='ghost-text']", (els) =>
    els.filter((e) => e.getClientRects().length > 0 && e.textContent.trim()).map((e) => e.textContent.replace(/\u00a0/g, " ")),
  );

async function goTo(wb, where) {
  await wb.focusEditor();
  await wb.page.keyboard.down("Control");
  await wb.page.keyboard.press("g");
  await wb.page.keyboard.up("Control");
  await until("the go-to-line box", () => wb.page.$(".quick-input-widget:not([style*='display: none']) input"));
  await wb.page.keyboard.type(where);
  await wb.page.keyboard.press("Enter");
}

const phases = [
  ["change", async (wb) => {
    await wb.openFile("main.py");
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Give send a timeout parameter");
    await wb.page.keyboard.press("Enter");
    await waitAnswer(chat, "Changed.");
    await wb.openFile("main.py");
  }],
  ["suggest", async (wb, r) => {
    await goTo(wb, "3:10"); // the cursor before the closing parenthesis of send("hi")
    r.ghost = await until("the ghost text at line 3", async () => ((await ghost(wb)).length ? await ghost(wb) : null), 30000, 200);
    await wb.shot("suggested");
    await wb.page.keyboard.press("Tab");
    r.accepted = await until("the accepted suggestion", async () => {
      const text = await wb.editorText();
      return text.includes('send("hi", timeout=5)') ? text : null;
    }, 10000);
    await wb.shot("accepted");
  }],
  ["dismiss", async (wb, r) => {
    await goTo(wb, "4:11"); // before the closing parenthesis of send("bye")
    r.before = await until("the ghost text at line 4", async () => ((await ghost(wb)).length ? await ghost(wb) : null), 30000, 200);
    await wb.page.keyboard.type("!");
    r.after = await until("no ghost text once the user types", async () => ((await ghost(wb)).length === 0 ? [] : null), 10000);
    r.text = await wb.editorText();
    await wb.shot("dismissed");
  }],
];

await runPhases(args, phases);
