// The agent asks VS Code's language servers (run by test_e2e_editor.py): a real VS Code with its built-in
// TypeScript server and the extension. The user opens a .ts file, waits for TypeScript to check it (its
// error squiggle), and asks a question; the fake model calls editor_definition, editor_references and
// editor_diagnostics, which the extension answers with vscode.execute*Provider and getDiagnostics.
// Usage: node e2e_editor.mjs '{"url": ..., "folder": ..., "shots": ...}'
import { runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

const phases = [
  ["typescript-ready", async (wb, r) => {
    await wb.openFile("main.ts");
    // TypeScript has loaded the project once it marks the deliberate type error of main.ts.
    await until("TypeScript's error squiggle in main.ts", () => wb.page.$(".editor-instance .squiggly-error"), 90000, 500);
    r.squiggle = true;
    await wb.shot("editor-typescript-ready");
  }],
  ["ask", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Where is greet defined and used?");
    await wb.page.keyboard.press("Enter");
    await until("the answer", async () => {
      const text = await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"));
      return text.includes("greet is defined in lib.ts") ? text : null;
    }, 90000);
    await until("the turn to end", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Send", 30000);
    r.cards = await chat.$$eval(".tool", (els) => els.map((e) => e.textContent.replace(/\s+/g, " ").trim().slice(0, 200)));
    await wb.shot("editor-answered");
  }],
];

await runPhases(args, phases);
