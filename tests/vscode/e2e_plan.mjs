// A plan reviewed in a real VS Code (run by test_e2e_plan.py): the user picks the plan agent in the
// chat and asks for a plan; the plan opens as a Markdown editor with Approve | Revise | Reject lenses
// and the chat shows it waiting; a comment on a line of the plan ("Add Plan Comment") and a message
// go back with Revise; the revised plan replaces it; Approve in the chat hands it to the build agent.
// Usage: node e2e_plan.mjs '{"url", "folder", "shots"}'
import { runPhases, until, waitAnswer } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

const planCard = (chat) => chat.evaluate(() => {
  const card = document.querySelector(".dialog.plan-dialog");
  return card ? { id: card.dataset.request, text: card.textContent } : null;
});

const planTab = (page) => page.$$eval(".tab", (tabs) => tabs.map((t) => t.getAttribute("aria-label") ?? "").find((l) => l.includes("fix-add.md")) ?? null);

async function clickButton(page, label) {
  const button = await until(`the ${label} button`, async () => {
    for (const b of await page.$$(".review-widget .monaco-button")) {
      if ((await b.evaluate((e) => e.textContent)).includes(label)) return b;
    }
    return null;
  });
  await button.click();
}

await runPhases(args, [
  ["presented", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    const chat = await wb.chat();
    await until("the agent picker to list plan", () => chat.$eval("#agent-picker", (el) => [...el.options].some((o) => o.value === "plan")), 30000);
    await chat.select("#agent-picker", "plan");
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Plan the fix of add in calc.py");
    await wb.page.keyboard.press("Enter");
    r.card = await until("the plan waiting in the chat", () => planCard(chat), 60000);
    r.tab = await until("the plan's editor", () => planTab(wb.page), 20000);
    r.lenses = await until("the plan's lenses", async () => {
      const lenses = await wb.lenses();
      return lenses.some((l) => l.includes("Approve plan")) ? lenses : null;
    }, 20000);
    r.text = await wb.editorText();
    await wb.shot("plan-presented");
  }],
  ["revise", async (wb, r) => {
    const { page } = wb;
    const chat = await wb.chat();
    const first = (await planCard(chat)).id;
    // A comment on line 3 of the plan, as on a pull request.
    await wb.focusEditor();
    await page.keyboard.down("Control");
    await page.keyboard.press("g");
    await page.keyboard.up("Control");
    await page.waitForSelector(".quick-input-widget input", { visible: true, timeout: 10000 });
    await page.keyboard.type("3");
    await page.keyboard.press("Enter");
    await wb.command("Add Comment on Current Selection");
    const input = await until("the comment box", () => page.$(".review-widget .comment-form .monaco-editor, .review-widget .comment-form textarea"), 10000);
    await input.click();
    await page.keyboard.type("which tests?");
    await clickButton(page, "Add Plan Comment");
    r.thread = await until("the comment in the thread", async () => {
      const texts = await page.$$eval(".review-widget .review-comment", (els) => els.map((e) => e.textContent.replace(/\u00a0/g, " ")));
      return texts.some((t) => t.includes("which tests?")) ? texts : null;
    });
    r.lensesWithComment = await until("the Revise lens counting it", async () => {
      const lenses = await wb.lenses();
      return lenses.some((l) => l.includes("Revise (1 comment)")) ? lenses : null;
    }, 10000);
    await wb.shot("plan-comment");
    // Revise… from the chat's card: a message beside the comment.
    await chat.click(`.dialog.plan-dialog[data-request="${first}"] [data-action="revise"]`);
    await page.waitForSelector(".quick-input-widget input", { visible: true, timeout: 10000 });
    await page.keyboard.type("Also cover negatives.");
    await page.keyboard.press("Enter");
    r.second = await until("the revised plan", async () => {
      const card = await planCard(chat);
      return card && card.id !== first ? card : null;
    }, 60000);
    r.revisedText = await until("the revised plan's text", async () => {
      const text = await wb.editorText().catch(() => "");
      return text.includes("negative numbers") ? text : null;
    }, 20000);
    await wb.shot("plan-revised");
  }],
  ["approve", async (wb, r) => {
    const chat = await wb.chat();
    const card = await planCard(chat);
    await chat.click(`.dialog.plan-dialog[data-request="${card.id}"] [data-action="approve"]`);
    await waitAnswer(chat, "add is fixed.");
    r.cards = await chat.$$eval(".dialog.plan-dialog", (els) => els.length);
    r.planTabs = await wb.page.$$eval(".tab", (tabs) => tabs.map((t) => t.getAttribute("aria-label") ?? "").filter((l) => l.includes("fix-add.md")));
    await wb.shot("plan-approved");
  }],
]);
