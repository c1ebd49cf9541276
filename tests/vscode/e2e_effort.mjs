// The effort picker follows the session's model (run by test_e2e_effort.py): a turn on a model with no
// effort levels hides it, a turn on one with levels shows them, and going back hides it again; the mode
// picker stays. Then the side bar at 300 px: the pickers show their names, the buttons and the
// editor note's chip (its × included) each stay on one line, within the view.
// Usage: node e2e_effort.mjs '{"url", "folder", "shots"}'
import fs from "node:fs";
import path from "node:path";
import { log, runPhases, until } from "./driver.mjs";

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
  ["picked", async (wb, r) => {
    // No turn yet on the thinking model: picking it is enough for the picker to offer its levels,
    // and a level set now is checked against them (not the plain model's none).
    const chat = await wb.chat();
    await chat.select("#model-picker", "fake/thinking");
    r.controls = await until("the effort picker shown for the picked model", async () => {
      const c = await controls(chat);
      return c.effortShown ? c : null;
    }, 10000);
    await chat.select("#effort-picker", "high");
    r.effort = await until("the effort set", async () => {
      const value = await chat.$eval("#effort-picker", (el) => el.value);
      return value === "high" ? value : null;
    }, 10000);
    r.notices = await chat.$$eval(".notice, .error", (els) => els.map((e) => e.textContent).filter(Boolean));
    await wb.shot("effort-picked");
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
  ["narrow", async (wb, r) => {
    const page = wb.page;
    await wb.openFile(args.longFile);
    // The side bar to 300 px, by its sash, as a user drags it.
    const bar = await page.$eval(".part.sidebar", (el) => { const b = el.getBoundingClientRect(); return { left: b.left, right: b.right, top: b.top, bottom: b.bottom }; });
    const y = (bar.top + bar.bottom) / 2;
    await page.mouse.move(bar.right, y);
    await page.mouse.down();
    await page.mouse.move(bar.left + 300, y, { steps: 8 });
    await page.mouse.up();
    r.sidebar = await until("the side bar at 300 px", async () => {
      const w = await page.$eval(".part.sidebar", (el) => Math.round(el.getBoundingClientRect().width));
      return Math.abs(w - 300) <= 2 ? w : null;
    }, 5000);
    const chat = await wb.chat();
    await until("the editor note's chip", () => chat.$eval("#prompt .editor-chip", (el) => !el.hidden), 20000);
    await chat.select("#model-picker", "fake/thinking"); // the longer name
    r.layout = await chat.evaluate(() => {
      const box = (el) => el.getBoundingClientRect();
      const prompt = box(document.getElementById("prompt"));
      const measure = document.createElement("canvas").getContext("2d");
      const selects = [...document.querySelectorAll(".prompt-row select")].map((s) => {
        measure.font = getComputedStyle(s).font;
        const text = s.selectedOptions[0]?.textContent ?? "";
        // The text plus the select's own padding and its arrow (about 20 px).
        return { id: s.id, text, needs: Math.ceil(measure.measureText(text).width) + 20, has: s.clientWidth };
      });
      const buttons = [...document.querySelectorAll(".prompt-actions button")].map((b) => ({ text: b.textContent, clipped: b.scrollWidth > b.clientWidth + 1, outside: box(b).right > prompt.right + 0.5 || box(b).left < prompt.left - 0.5 }));
      const chip = document.querySelector("#prompt .editor-chip");
      const remove = chip.querySelector(".chip-remove");
      const line = parseFloat(getComputedStyle(chip).lineHeight) || 18;
      return {
        selects,
        buttons,
        chip: { text: chip.textContent, height: box(chip).height, line, removeBeside: box(remove).top < box(chip).top + line && box(remove).right <= box(chip).right + 0.5, outside: box(chip).right > prompt.right + 0.5 },
      };
    });
    // The prompt area, zoomed 2×, to look at as a reader.
    const zone = await page.$eval(".part.sidebar", (el) => { const b = el.getBoundingClientRect(); return { x: b.left, y: b.bottom - 190, width: b.width, height: 190 }; });
    wb.shotCount += 1;
    const file = path.join(args.shots, `${String(wb.shotCount).padStart(2, "0")}-narrow-300px-zoomed.png`);
    fs.writeFileSync(file, await page.screenshot({ type: "png", clip: { ...zone, scale: 2 } }));
    log("screenshot", file);
  }],
]);
