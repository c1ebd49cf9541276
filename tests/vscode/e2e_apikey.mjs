// A provider's API key entered and replaced at any time (run by test_e2e_apikey.py): the fake model
// answers the first prompt with HTTP 401; the chat's notice offers "Set API Key"; the user picks the
// provider and types the key (a password box); the prompt sent again gets an answer. Then the
// palette's "agentls: Set API Key…" replaces the key, and the next answer comes with the new one.
// Usage: node e2e_apikey.mjs '{"url", "folder", "shots"}'
import * as fs from "node:fs";
import * as path from "node:path";
import { quickInput, runPhases, until, waitAnswer } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);
let chat = null;

/** Pick the provider `id` and type `key` into the password box that follows. */
async function enterKey(wb, id, key) {
  await quickInput(wb, id, { title: "agentls: Set API Key — provider" });
  await quickInput(wb, key, { title: `agentls: Set API Key — ${id}`, list: false });
  await until("the key taken", async () => (await wb.notifications()).some((n) => n.includes(`the ${id} key is set`)), 30000);
}

async function send(wb, words) {
  chat = await wb.prompt(words);
}

await runPhases(args, [
  ["refused", async (wb, r) => {
    await send(wb, "hello");
    // The button comes with the turn's error event; the host's "your prompt is back in the box" when
    // the prompt's request fails, a moment later (later still on a loaded machine): wait for both.
    await until("the Set API Key button and the prompt back", async () =>
      (await chat.$("#notice:not([hidden]) #set-api-key")) !== null && (await chat.$eval("#notice", (n) => n.textContent)).includes("back in the box"), 60000);
    r.button = await chat.$eval("#set-api-key", (b) => b.textContent);
    r.notice = await chat.$eval("#notice", (n) => n.textContent);
    r.noticeHeight = await chat.$eval("#notice", (n) => n.getBoundingClientRect().height);
    r.lineHeight = await chat.$eval("#notice", (n) => parseFloat(getComputedStyle(n).lineHeight) || 18);
    await wb.shot("refused");
  }],
  ["enter-key", async (wb, r) => {
    await chat.click("#set-api-key");
    await enterKey(wb, "fake", "sk-test-4242");
    r.notifications = await wb.notifications();
    // The server restarted with the key: send again (the refused prompt went back into the box).
    await until("the server back", () => chat.$eval("#model-picker", (el) => el.options.length > 0), 30000);
    await send(wb, " again");
    await waitAnswer(chat, "HELLO-WITH-A-KEY.");
    const settings = path.join(path.dirname(args.folder), "vscode", "data", "User", "settings.json");
    r.settings = fs.existsSync(settings) ? fs.readFileSync(settings, "utf8") : "";
    await wb.shot("answered");
  }],
  ["replace-key", async (wb) => {
    await wb.command("agentls: Set API Key…");
    await enterKey(wb, "fake", "sk-new-7777");
    await until("the server back", () => chat.$eval("#model-picker", (el) => el.options.length > 0), 30000);
    await send(wb, "and now");
    await waitAnswer(chat, "HELLO-WITH-THE-NEW-KEY.");
  }],
]);
