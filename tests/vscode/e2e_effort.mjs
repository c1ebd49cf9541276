// The effort picker follows the session's model (run by test_e2e_effort.py): a turn on a model with no
// effort levels hides it, a turn on one with levels shows them, and going back hides it again; the mode
// picker stays.
// Usage: node e2e_effort.mjs '{"url", "folder", "shots"}'
import { runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

/** The header's pickers as the chat shows them. */
function controls(chat) {
  return chat.evaluate(() => {
    const mode = document.getElementById("mode-picker");
    const effort = document.getElementById("effort-picker");
    return {
      modeShown: !mode.closest(".picker").hidden,
      effortShown: !effort.closest(".picker").hidden && !document.getElementById("controls").hidden,
      levels: [...effort.options].map((o) => o.value),
    };
  });
}

/** Send `words` on `model` (picked in the prompt's model picker) and wait for `answer`. */
async function turn(wb, model, words, answer) {
  await wb.command("agentls: Focus Chat");
  const chat = await wb.chat();
  await until(`${model} in the model picker`, () => chat.$eval("#model-picker", (el, m) => [...el.options].some((o) => o.value === m), model), 20000);
  await chat.select("#model-picker", model);
  await chat.click("#prompt-input");
  await chat.type("#prompt-input", words);
  await wb.page.keyboard.press("Enter");
  await until(`the answer "${answer}"`, async () => (await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"))).includes(answer), 30000);
  await wb.waitIdle(chat);
  return chat;
}

await runPhases(args, [
  ["plain", async (wb, r) => {
    const chat = await turn(wb, "fake/plain", "Hello", "PLAIN-ONE");
    r.controls = await until("the effort picker hidden, the mode picker shown", async () => {
      const c = await controls(chat);
      return c.modeShown && !c.effortShown ? c : null;
    }, 10000);
    await wb.shot("effort-hidden");
  }],
  ["thinking", async (wb, r) => {
    const chat = await turn(wb, "fake/thinking", "Think about it", "THINKING-ONE");
    r.controls = await until("the effort picker shown", async () => {
      const c = await controls(chat);
      return c.effortShown ? c : null;
    }, 10000);
    await wb.shot("effort-shown");
  }],
  ["plain-again", async (wb, r) => {
    const chat = await turn(wb, "fake/plain", "And now plainly", "PLAIN-TWO");
    r.controls = await until("the effort picker hidden again", async () => {
      const c = await controls(chat);
      return !c.effortShown ? c : null;
    }, 10000);
  }],
]);
