// The agent's code review in a real VS Code (run by test_e2e_review_findings.py): /review in the chat,
// then the findings in VS Code's own Problems list (source "agentls review"), as plain LSP
// diagnostics the extension did nothing special for.
// Usage: node e2e_review_findings.mjs '{"url", "folder", "shots"}'
import { runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

/** The Problems list's rows, as their accessible labels (message, source, place). */
function problemRows(page) {
  return page.$$eval(".markers-panel .monaco-list-row", (rows) => rows.map((r) => r.getAttribute("aria-label") ?? r.textContent));
}

await runPhases(args, [
  ["review", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    await until("the model picker to fill", () => chat.$eval("#model-picker", (el) => el.options.length > 0));
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "/review");
    // The / menu, once the server's list is in, offers /review: Enter picks it ("/review "), and a
    // second Enter sends it as the command (not as a prompt that happens to start with a slash).
    await until("/review in the / menu", () => chat.evaluate(() => document.querySelector('#slash-menu .slash-item.active')?.dataset.name === "review"), 20000);
    await wb.page.keyboard.press("Enter");
    await until("the prompt to read /review", () => chat.$eval("#prompt-input", (el) => el.value === "/review "), 10000);
    await wb.page.keyboard.press("Enter");
    await until("the review's answer", async () => (await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"))).includes("add() subtracts"), 60000);
    await wb.waitIdle(chat, 60000);
    await wb.leaveWebview();
    await wb.command("View: Focus Problems (Errors, Warnings, Infos)");
    r.rows = await until("both findings in the Problems list", async () => {
      const rows = await problemRows(wb.page);
      return rows.filter((row) => row.includes("agentls review")).length >= 2 ? rows : null;
    }, 30000);
    await wb.shot("problems");
  }],
]);
