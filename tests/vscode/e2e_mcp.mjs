// An MCP server's resources and prompts in a real VS Code (run by test_e2e_mcp.py): the user types
// `@` in the chat's prompt and picks @docs:docs://readme (a chip with its token count), the template
// @docs:notes://{name} (asked for name: a chip @docs:notes://plan), and @docs:docs://logo (binary:
// a warning says why, no chip); the prompt goes with the two chips. Then `/mcp` lists the server's
// prompt in the `/` menu, and `/mcp__docs__explain add style=long` runs it. Last, the palette's
// "agentls: MCP Servers" lists docs (running) and broken (failed, why); the server's deploy tool
// asks its form in the chat's question dialog; and docs is disabled from the servers' pick. vault, a
// remote server behind OAuth, is listed as needing a login; Log In opens its authorization page in
// a browser tab (after VS Code's question to open an external site, when it asks one), which comes
// back to agentls' loopback port; the pick then shows vault running, logged in.
// (The servers' pick is opened first: it waits for the agent, so the @ pick then lists the resources.)
// Usage: node e2e_mcp.mjs '{"url": ..., "folder": ..., "shots": ...}'
import { chipsText, mention, quickInput, runPhases, until, waitAnswer } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

const at = async (chat) => {
  await chat.$eval("#prompt-input", (el) => {
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  });
  await chat.type("#prompt-input", " @");
};

await runPhases(args, [
  ["servers-list", async (wb, r) => {
    // The palette's "agentls: MCP Servers" (answered once the agent and its servers are up).
    await wb.focusChat();
    await wb.command("agentls: MCP Servers");
    r.rows = await until("the servers in the pick", async () => {
      const rows = await wb.quickRows();
      const all = ["docs", "broken", "vault"].every((name) => rows.some((row) => row.includes(name)));
      return all ? rows : null;
    }, 60000);
    await wb.shot("mcp-servers");
    await wb.page.keyboard.press("Escape");
  }],
  ["resources", async (wb, r) => {
    await wb.focusChat();
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "Read these:");
    r.readme = await mention(wb, chat, "docs:docs://readme");
    await at(chat);
    await quickInput(wb, "@docs:notes://", { placeholder: "Files to attach" });
    await quickInput(wb, "plan", { title: "@docs:notes://{name}", list: false });
    r.chips = await until("the @docs:notes://plan chip", async () => {
      const chips = await chipsText(chat);
      return chips.some((c) => c.startsWith("@docs:notes://plan") && / tok$/.test(c)) ? chips : null;
    }, 30000);
    await at(chat);
    await quickInput(wb, "@docs:docs://logo", { placeholder: "Files to attach" });
    r.warning = await until("the warning about the binary resource", async () => (await wb.notifications()).find((n) => n.includes("docs://logo")) ?? null, 20000);
    r.chipsAfter = await chipsText(chat);
    await wb.shot("mcp-chips");
    await chat.click("#prompt-input");
    await wb.page.keyboard.press("Enter");
    await waitAnswer(chat, "Read.");
  }],
  ["prompt", async (wb, r) => {
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "/mcp");
    r.row = await until("the prompt in the / menu", () => chat.evaluate(() => {
      const row = document.querySelector('.slash-item[data-name="mcp__docs__explain"]');
      return row ? row.textContent : null;
    }), 20000);
    await wb.shot("mcp-slash-menu");
    await chat.type("#prompt-input", "__docs__explain add style=long");
    await wb.page.keyboard.press("Enter");
    await waitAnswer(chat, "Explained.");
  }],
  ["form", async (wb, r) => {
    // The server's deploy tool asks a form: the chat's question dialog, one fieldset per field.
    const chat = await wb.chat();
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", "deploy it");
    await wb.page.keyboard.press("Enter");
    await chat.waitForSelector(".dialog.question-dialog", { timeout: 30000 });
    r.legends = await chat.$$eval(".question-dialog fieldset.question legend", (els) => els.map((e) => e.textContent));
    // Only the fields that take a typed value have the box to type into (not the choice, the yes/no, Send).
    r.typed = await chat.$$eval(".question-dialog fieldset.question", (els) => els.map((e) => e.querySelector("textarea") !== null));
    await chat.click('.question-dialog input[value="production"]');
    const fields = await chat.$$(".question-dialog fieldset.question");
    await (await fields[1].$("textarea")).type("3");
    await chat.click('.question-dialog input[value="yes"]');
    await chat.click('.question-dialog input[value="Leave empty"]');
    await chat.click('.question-dialog input[value="Send"]');
    await wb.shot("mcp-form");
    await chat.click('.question-dialog [data-action="answer"]');
    await waitAnswer(chat, "Deployed.");
  }],
  ["servers", async (wb, r) => {
    // docs is disabled from the same pick.
    await wb.command("agentls: MCP Servers");
    await quickInput(wb, "docs", { title: "agentls: MCP Servers" });
    await quickInput(wb, "Disable", { title: "MCP server docs" });
    r.notice = await until("the notice", async () => (await wb.notifications()).find((n) => n.includes("MCP server docs disabled")) ?? null, 20000);
    r.after = await until("the pick again, docs disabled", async () => {
      const rows = await wb.quickRows();
      return rows.some((row) => row.includes("docs") && row.includes("disabled")) ? rows : null;
    }, 20000);
    await wb.page.keyboard.press("Escape");
  }],
  ["login", async (wb, r) => {
    // The user's browser: the page VS Code opens for the authorization URL, in a tab of its own
    // (VS Code may first ask whether to open the external site: then the user says Open).
    const isLogin = (t) => t.url().includes("/authorize") || t.url().includes("/callback");
    await wb.command("agentls: MCP Servers");
    await quickInput(wb, "vault", { title: "agentls: MCP Servers" });
    await quickInput(wb, "Log In", { title: "MCP server vault" });
    const target = await until("the authorization page in a tab", async () => {
      const asked = await wb.modal();
      if (asked !== null) {
        r.asked = asked.message;
        await wb.shot("mcp-login-open");
        await wb.modalButton("Open");
      }
      return wb.browser.targets().find(isLogin) ?? null;
    }, 60000);
    const tab = await target.page();
    r.page = await until("the loopback's page", async () => {
      const text = await tab.evaluate(() => document.body?.innerText ?? "").catch(() => "");
      return text.includes("logged in") || text.includes("failed") ? text : null;
    }, 60000);
    r.after = await until("the pick, vault running", async () => {
      await wb.page.keyboard.press("Escape");
      await wb.command("agentls: MCP Servers");
      const rows = await until("the servers in the pick", async () => {
        const listed = await wb.quickRows();
        return listed.some((row) => row.includes("vault")) ? listed : null;
      }, 20000);
      return rows.some((row) => row.includes("vault") && row.includes("running")) ? rows : null;
    }, 60000);
    await wb.shot("mcp-logged-in");
    await wb.page.keyboard.press("Escape");
  }],
]);
