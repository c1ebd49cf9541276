// The extension installed from its .vsix on a machine with no agentls, in an untrusted workspace that
// has its own .venv/bin/agentls (run by test_e2e_install.py):
//   "offered": the chat view activates the extension; the workspace's agentls is not run; the install is offered.
//   "installed": with the Python on PATH, Install makes the managed venv from the bundled wheel, the server starts.
//   "turn": a prompt gets the fake model's answer through that server.
//   "updated": a venv stamped by another extension version gets this version's wheel at the next start.
//   "trusted": once the user trusts the workspace, its own server setting is used.
// Usage: node e2e_install.mjs '{"url", "folder", "shots", "trace", "marker"}'
import * as fs from "node:fs";
import * as path from "node:path";
import { runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

function events(name) {
  if (!fs.existsSync(args.trace)) return [];
  return fs.readFileSync(args.trace, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.event === name);
}

/** The visible notification whose message contains `text` (its message, and a handle to click its buttons). */
async function notification(page, text, timeout = 30000) {
  return until(`a notification with "${text}"`, async () => {
    const items = await page.$$(".notification-list-item");
    for (const item of items) {
      const message = await item.$eval(".notification-list-item-message", (m) => m.textContent).catch(() => "");
      if (message.includes(text)) return { item, message };
    }
    return null;
  }, timeout);
}

async function clickButton(found, label) {
  const buttons = await found.item.$$(".notification-list-item-buttons-container .monaco-button");
  for (const b of buttons) {
    if ((await b.evaluate((el) => el.textContent)) === label) return b.click();
  }
  throw new Error(`no "${label}" button on: ${found.message}`);
}

async function offerAndInstall(wb) {
  const offer = await notification(wb.page, "Install agentls");
  await clickButton(offer, "Install");
  return offer.message;
}

const phases = [
  ["offered", async (wb, r) => {
    await wb.command("agentls: Focus Chat");
    r.activated = await until("the extension's activation", () => events("activated")[0], 30000);
    r.offer = (await notification(wb.page, "Install agentls")).message;
    r.missing = events("serverMissing").length;
    r.markerAfter = fs.existsSync(args.marker);
    // The workbench draws its Restricted Mode banner on its own time (after our notice, on a fast machine).
    r.banner = await until("the Restricted Mode banner", () => wb.page.evaluate(() => document.querySelector(".monaco-workbench")?.innerText.includes("Restricted Mode") ?? false)).catch(() => false);
    await wb.shot("install-offered");
  }],
  ["installed", async (wb, r) => {
    await offerAndInstall(wb);
    r.progress = (await notification(wb.page, "installing the server", 10000).catch(() => ({ message: "" }))).message;
    await wb.shot("installing");
    r.installed = await until("the managed install", () => events("managedInstalled")[0], 240000, 250);
    r.install = events("managedInstall")[0];
    r.steps = events("installStep");
    r.done = (await notification(wb.page, "installed agentls")).message;
    r.started = await until("the server's handshake", () => events("serverInitialized").at(-1), 60000);
    r.markerAfter = fs.existsSync(args.marker);
  }],
  ["turn", async (wb, r) => {
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "hello from the vsix");
    await wb.page.keyboard.press("Enter");
    r.answer = await until("the answer", async () => {
      const text = await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"));
      return text.includes("installed server") ? text : null;
    }, 60000);
    await wb.shot("turn-answered");
  }],
  ["updated", async (wb, r) => {
    const stamp = path.join(path.dirname(path.dirname(events("managedInstalled")[0].executable)), "..", "installed.json");
    r.stampBefore = JSON.parse(fs.readFileSync(stamp, "utf8"));
    fs.writeFileSync(stamp, JSON.stringify({ ...r.stampBefore, extension: "0.0.1" }));
    const started = events("serverInitialized").length;
    await wb.command("agentls: Restart Server");
    await until("the reinstall", () => events("managedInstalled").length >= 2, 240000, 250);
    await until("the server's handshake", () => events("serverInitialized").length > started, 60000);
    r.stale = events("managedStale").length;
    r.updates = events("managedUpdate").length;
    r.freshInstalls = events("managedInstall").length;
    r.stampAfter = JSON.parse(fs.readFileSync(stamp, "utf8"));
  }],
  ["trusted", async (wb, r) => {
    // The same workspace, trusted now: its own agentls.server.path (.venv/bin/agentls) is used, the
    // program the phases above proved it did not run.
    await wb.command("Workspaces: Manage Workspace Trust");
    const button = await until("the Trust button", async () => {
      for (const b of await wb.page.$$(".workspace-trust-editor .monaco-button")) {
        if ((await b.evaluate((el) => el.textContent.trim())) === "Trust") return b;
      }
      return null;
    }, 20000);
    await button.click();
    await until("the workspace's agentls to run", () => fs.existsSync(args.marker), 60000);
    r.error = (await notification(wb.page, ".venv/bin/agentls", 30000)).message;
    // Read once the failure is shown: a second start (two restarts at once) would have run it twice.
    r.marker = fs.readFileSync(args.marker, "utf8").trim();
    r.restarts = events("settingsRestart").length;
    r.failedStarts = events("serverStartFailed").length;
    r.notifications = await wb.notifications();
    await wb.shot("trusted");
  }],
];

await runPhases(args, phases);
