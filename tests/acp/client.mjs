// An ACP client built on the official TypeScript SDK (@agentclientprotocol/sdk), driving `agentls acp`.
//
// node client.mjs SCENARIO — the agent command comes from AGENT_CMD (a JSON array), the project from
// PROJECT. Every message the client receives is logged in order; the scenario's results and the log
// are printed as one JSON document on stdout for the pytest side to check.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { Readable, Writable } from "node:stream";
// FORM_ANSWERS: the client declares elicitation forms (an unstable part of the SDK) and answers
// each elicitation/create with the next of these responses.
const formAnswers = process.env.FORM_ANSWERS ? JSON.parse(process.env.FORM_ANSWERS) : null;
const { client, methods, ndJsonStream } = await import(
  formAnswers ? "@agentclientprotocol/sdk/unstable" : "@agentclientprotocol/sdk"
);

const scenario = process.argv[2];
const project = process.env.PROJECT;
const agentCmd = JSON.parse(process.env.AGENT_CMD);
const choice = process.env.PERMISSION_CHOICE ?? "allow_once"; // the option kind the "user" picks
const buffers = JSON.parse(process.env.BUFFERS ?? "{}"); // path → unsaved editor text
const picks = JSON.parse(process.env.PICKS ?? "[]");
const log = [];
const results = {};
const waiters = [];

function record(entry) {
  log.push(entry);
  for (const w of [...waiters]) {
    if (w.test(entry)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(entry);
    }
  }
}

function waitFor(test, what, ms = 20000) {
  const seen = log.find(test);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    waiters.push({ test, resolve: (e) => { clearTimeout(timer); resolve(e); } });
  });
}

const proc = spawn(agentCmd[0], agentCmd.slice(1), { cwd: project, stdio: ["pipe", "pipe", "inherit"] });
const stream = ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout));

const app = client({ name: "agentls-test-client" })
  .onNotification(methods.client.session.update, ({ params }) => {
    record({ kind: "update", sessionId: params.sessionId, update: params.update });
  })
  .onRequest(methods.client.session.requestPermission, async ({ params }) => {
    record({ kind: "permission", params });
    // MARKER: a file the project's MCP server writes when started; noted while the dialog is open.
    if (process.env.MARKER) record({ kind: "marker-while-asked", exists: existsSync(process.env.MARKER) });
    // PERMISSION_FAIL: the client cannot show the dialog and answers with an error.
    if (process.env.PERMISSION_FAIL) throw new Error("this client shows no such dialog");
    if (process.env.PERMISSION_HOLD) {
      // Leave the dialog open until the turn is cancelled; then answer as the protocol says.
      await waitFor((e) => e.kind === "cancel-sent", "the cancel");
      return { outcome: { outcome: "cancelled" } };
    }
    if (process.env.PERMISSION_AFTER) {
      // Answer only once the log holds an entry of this kind (e.g. "second-sent").
      await waitFor((e) => e.kind === process.env.PERMISSION_AFTER, process.env.PERMISSION_AFTER);
    }
    if (picks.length) {
      // PICKS: the option names the "user" clicks, in order (question dialogs).
      const name = picks.shift();
      const picked = params.options.find((o) => o.name === name);
      if (!picked) throw new Error(`no option ${name} in ${JSON.stringify(params.options)}`);
      return { outcome: { outcome: "selected", optionId: picked.optionId } };
    }
    const option = params.options.find((o) => o.kind === choice);
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  })
  .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
    record({ kind: "read", params });
    if (params.path in buffers) return { content: buffers[params.path] };
    return { content: readFileSync(params.path, "utf8") };
  })
  .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
    record({ kind: "write", params });
    mkdirSync(dirname(params.path), { recursive: true });
    writeFileSync(params.path, params.content);
    return {};
  });

if (formAnswers) {
  app.onRequest(methods.client.elicitation.create, async ({ params }) => {
    record({ kind: "form", params });
    return formAnswers.shift();
  });
}

// TERMINALS=1: the client runs commands for the agent (terminal/*), as an editor's terminal would.
const terminals = new Map();
if (process.env.TERMINALS) {
  app
    .onRequest(methods.client.terminal.create, async ({ params }) => {
      record({ kind: "terminal-create", params });
      const id = `term-${terminals.size + 1}`;
      const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? project });
      const term = { output: "", exit: null };
      term.exited = new Promise((resolve) => child.on("exit", (code, signal) => {
        term.exit = { exitCode: code, signal };
        resolve(term.exit);
      }));
      child.stdout.on("data", (d) => { term.output += d; });
      child.stderr.on("data", (d) => { term.output += d; });
      term.child = child;
      terminals.set(id, term);
      return { terminalId: id };
    })
    .onRequest(methods.client.terminal.waitForExit, async ({ params }) => terminals.get(params.terminalId).exited)
    .onRequest(methods.client.terminal.output, async ({ params }) => {
      const term = terminals.get(params.terminalId);
      return { output: term.output, truncated: false, exitStatus: term.exit };
    })
    .onRequest(methods.client.terminal.kill, async ({ params }) => {
      terminals.get(params.terminalId).child.kill();
      return {};
    })
    .onRequest(methods.client.terminal.release, async ({ params }) => {
      record({ kind: "terminal-release", params });
      return {};
    });
}

async function init(agent) {
  return agent.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: {
      // FS=none: a client that neither reads nor writes files for the agent.
      fs: { readTextFile: process.env.FS !== "none", writeTextFile: process.env.FS !== "none" },
      terminal: Boolean(process.env.TERMINALS),
      ...(process.env.CLIENT_AUTH_TERMINAL ? { auth: { terminal: true } } : {}),
      // CLIENT_META_TERMINAL_AUTH: the older flag of terminal login (Zed's, the ACP registry's check).
      ...(process.env.CLIENT_META_TERMINAL_AUTH ? { _meta: { "terminal-auth": true } } : {}),
      ...(formAnswers ? { elicitation: { form: {} } } : {}),
    },
    clientInfo: { name: "agentls-test-client", version: "1.0.0" },
  });
}

async function prompt(agent, sessionId, text, blocks = [{ type: "text", text }]) {
  const started = Date.now();
  const response = await agent.request(methods.agent.session.prompt, { sessionId, prompt: blocks });
  record({ kind: "stop", stopReason: response.stopReason, ms: Date.now() - started });
  return response;
}

const scenarios = {
  // A turn that starts a background sub-agent and ends; its report arrives later, unasked, as the
  // user's message of a turn the agent starts itself; then session/load replays it.
  async background(agent) {
    await init(agent);
    const session = await agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    results.prompt = await prompt(agent, session.sessionId, "run R in the background");
    record({ kind: "answered" });
    if (process.env.ANSWERED_FILE) writeFileSync(process.env.ANSWERED_FILE, session.sessionId);
    await waitFor((e) => e.kind === "update" && e.update.sessionUpdate === "agent_message_chunk" && e.update.content.text.includes("R says 42."), "the answer to the report");
    results.sessionId = session.sessionId;
  },
  // Worktree sessions (_meta.agentls.worktree): two made and prompted at once ("task one", "task
  // two"), the refusals of BAD_NAMES (a JSON list) recorded, then the project's session list.
  async worktrees(agent) {
    await init(agent);
    const inWorktree = (name) => agent.request(methods.agent.session.new, {
      cwd: project, mcpServers: [], _meta: { agentls: { worktree: name } },
    });
    results.one = await inWorktree("one");
    results.two = await inWorktree("two");
    results.refused = [];
    for (const name of JSON.parse(process.env.BAD_NAMES ?? "[]")) {
      try {
        results.refused.push(await inWorktree(name));
      } catch (error) {
        results.refused.push({ error: { code: error.code, message: error.message } });
      }
    }
    results.prompts = await Promise.all([
      prompt(agent, results.one.sessionId, "task one"),
      prompt(agent, results.two.sessionId, "task two"),
    ]);
    results.list = await agent.request(methods.agent.session.list, { cwd: project });
  },
  // initialize, session/new, one prompt; the log holds the streamed updates.
  async turn(agent) {
    results.initialize = await init(agent);
    // MCP_SERVERS: the session's mcpServers (JSON), as an editor passes its configured servers.
    const mcpServers = JSON.parse(process.env.MCP_SERVERS ?? "[]");
    const session = await agent.request(methods.agent.session.new, { cwd: project, mcpServers });
    results.session = session;
    results.prompt = await prompt(agent, session.sessionId, process.env.PROMPT ?? "hello");
    results.list = await agent.request(methods.agent.session.list, { cwd: project });
  },
  // A turn whose tool waits for a permission that the user never answers; the client cancels it.
  async cancel(agent) {
    await init(agent);
    const session = await agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    const pending = prompt(agent, session.sessionId, process.env.PROMPT ?? "hello");
    // CANCEL_AFTER: "permission", or the kind of session update after which the user cancels.
    const after = process.env.CANCEL_AFTER ?? "permission";
    await waitFor((e) => e.kind === after || (e.kind === "update" && e.update.sessionUpdate === after),
      "the moment to cancel");
    const sent = Date.now();
    record({ kind: "cancel-sent" });
    await agent.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
    const response = await pending;
    results.prompt = response;
    results.cancelToStopMs = Date.now() - sent;
  },
  // Two prompts in flight in one session: the second is sent while the first waits on a permission
  // (PERMISSION_AFTER=second-sent holds it) and is queued; CANCEL=1 then cancels the session.
  async queue(agent) {
    await init(agent);
    const session = await agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    const settle = (which, pending) => pending.then(
      (response) => { record({ kind: "answered", which, response }); return response; },
      (error) => { record({ kind: "answered", which, error: error.message }); return { error: error.message }; },
    );
    const first = settle("first", prompt(agent, session.sessionId, "first prompt"));
    await waitFor((e) => e.kind === "permission", "the first prompt's permission request");
    const second = settle("second", prompt(agent, session.sessionId, "second prompt"));
    record({ kind: "second-sent" });
    if (process.env.CANCEL) {
      record({ kind: "cancel-sent" });
      await agent.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
    }
    results.first = await first;
    results.second = await second;
  },
  // A prompt whose agent host dies mid-turn: once its first chunk arrived, the session id goes to
  // READY_FILE (the test kills the host then); the first prompt's end is recorded, then the
  // client waits for the notice and sends PROMPT2 on the same session (its answer or error recorded).
  async hostLost(agent) {
    await init(agent);
    const session = await agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    results.session = session;
    const first = prompt(agent, session.sessionId, process.env.PROMPT ?? "hello").then(
      (response) => ({ response }), (error) => ({ error: { code: error.code, message: error.message } }));
    await waitFor((e) => e.kind === "update" && e.update.sessionUpdate === "agent_message_chunk", "the first chunk");
    writeFileSync(process.env.READY_FILE, session.sessionId);
    results.first = await first;
    await waitFor((e) => e.kind === "update" && e.update.sessionUpdate === "agent_message_chunk"
      && e.update.content.text.includes("agent host"), "the notice that the host stopped");
    record({ kind: "second-sent" });
    results.second = await prompt(agent, session.sessionId, process.env.PROMPT2).catch(
      (error) => ({ error: { code: error.code, message: error.message } }));
  },
  // session/load of a session stored by an earlier process (SESSION_ID).
  async load(agent) {
    await init(agent);
    results.load = await agent.request(methods.agent.session.load, {
      sessionId: process.env.SESSION_ID, cwd: project, mcpServers: [],
    });
    record({ kind: "loaded" });
    if (process.env.PROMPT) results.prompt = await prompt(agent, process.env.SESSION_ID, process.env.PROMPT);
  },
  // PROMPTS: a JSON list of content-block lists, sent in turn; a refused one is recorded, not fatal.
  async blocks(agent) {
    results.initialize = await init(agent);
    const session = await agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    results.answers = [];
    for (const blocks of JSON.parse(process.env.PROMPTS)) {
      try {
        results.answers.push(await prompt(agent, session.sessionId, "", blocks));
      } catch (error) {
        results.answers.push({ error: { code: error.code, message: error.message } });
      }
    }
  },
  // Modes and models through session/set_mode and session/set_config_option.
  async modes(agent) {
    await init(agent);
    const session = await agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    results.session = session;
    results.setMode = await agent.request(methods.agent.session.setMode, {
      sessionId: session.sessionId, modeId: "plan",
    });
    results.setModel = await agent.request(methods.agent.session.setConfigOption, {
      sessionId: session.sessionId, configId: "model", value: process.env.MODEL,
    });
    try {
      await agent.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: "nope" });
    } catch (error) {
      results.badMode = { code: error.code, message: error.message };
    }
    results.prompt = await prompt(agent, session.sessionId, "hello");
    results.deleted = await agent.request(methods.agent.session.delete, { sessionId: session.sessionId });
    results.listAfterDelete = await agent.request(methods.agent.session.list, { cwd: project });
  },
  // authenticate with each offered method (and one that is not offered); errors are recorded.
  async auth(agent) {
    results.initialize = await init(agent);
    results.authenticate = {};
    for (const methodId of ["agentls-config", "agentls-auth", "nope"]) {
      try {
        results.authenticate[methodId] = await agent.request(methods.agent.authenticate, { methodId });
      } catch (error) {
        results.authenticate[methodId] = { error: { code: error.code, message: error.message, data: error.data } };
      }
    }
  },
  // authenticate fails without a key; the terminal method (agentls acp --auth, run here with the
  // provider and key typed on its stdin) stores one; authenticate then succeeds in the same agent.
  async authFlow(agent) {
    results.initialize = await init(agent);
    const authenticate = async () => {
      try {
        return await agent.request(methods.agent.authenticate, { methodId: "agentls-config" });
      } catch (error) {
        return { error: { code: error.code, message: error.message, data: error.data } };
      }
    };
    results.before = await authenticate();
    let command, args, env;
    const flagged = results.initialize.authMethods.find((m) => m._meta?.["terminal-auth"]);
    if (process.env.CLIENT_META_TERMINAL_AUTH && flagged) {
      // Zed's convention: the method names the whole command; the client runs it as it is.
      ({ command, args, env } = flagged._meta["terminal-auth"]);
      results.terminalMethod = flagged;
    } else {
      const terminal = results.initialize.authMethods.find((m) => m.type === "terminal");
      [command, args, env] = [agentCmd[0], [...agentCmd.slice(1), ...terminal.args], terminal.env];
    }
    const child = spawn(command, args, {
      cwd: project, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...(env ?? {}) },
    });
    let output = "";
    child.stderr.on("data", (d) => { output += d; });
    child.stdin.end(process.env.TERMINAL_INPUT);
    results.terminalExit = await new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    results.terminalOutput = output;
    results.after = await authenticate();
  },
  // A turn, then session/fork (by name: the stable SDK export has no constant for it): the fork
  // answers a prompt of its own.
  async fork(agent) {
    results.initialize = await init(agent);
    const session = await agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    results.session = session;
    await agent.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: "plan" });
    results.first = await prompt(agent, session.sessionId, "first question");
    results.fork = await agent.request("session/fork", {
      sessionId: session.sessionId, cwd: project, mcpServers: [],
    });
    results.second = await prompt(agent, results.fork.sessionId, "second question");
    try {
      await agent.request("session/fork", { sessionId: "ses_missing", cwd: project, mcpServers: [] });
    } catch (error) {
      results.badFork = { code: error.code, message: error.message };
    }
  },
  // CONFIG: [configId, value] pairs set in turn, then PROMPTS (texts) sent in turn; errors are recorded.
  async options(agent) {
    await init(agent);
    const session = await agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    results.session = session;
    const attempt = async (pending) => {
      try {
        return await pending;
      } catch (error) {
        return { error: { code: error.code, message: error.message } };
      }
    };
    results.set = [];
    for (const [configId, value] of JSON.parse(process.env.CONFIG ?? "[]")) {
      const params = { sessionId: session.sessionId, configId, value };
      results.set.push(await attempt(agent.request(methods.agent.session.setConfigOption, params)));
    }
    results.answers = [];
    for (const template of JSON.parse(process.env.PROMPTS ?? "[]")) {
      // {hnk}, {msg}: the first id of that kind the agent's messages named so far (/review, /rewind).
      const said = log.filter((e) => e.kind === "update" && e.update.sessionUpdate === "agent_message_chunk")
        .map((e) => e.update.content.text ?? "").join("");
      const text = template.replace(/\{(hnk|msg)\}/g, (hole, kind) => (said.match(new RegExp(`${kind}_\\w+`)) ?? [hole])[0]);
      record({ kind: "prompt-sent", text });
      results.answers.push(await attempt(prompt(agent, session.sessionId, text)));
    }
  },
  // A session left open: its id goes to READY_FILE, then the client waits for a config_option_update
  // whose option WATCH_OPTION has the value WATCH_VALUE (another client changes it meanwhile).
  async watch(agent) {
    await init(agent);
    const session = await agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    results.session = session;
    writeFileSync(process.env.READY_FILE, session.sessionId);
    const wanted = (e) => e.kind === "update" && e.update.sessionUpdate === "config_option_update"
      && e.update.configOptions.some((o) => o.id === process.env.WATCH_OPTION
        && o.currentValue === process.env.WATCH_VALUE);
    // The other client is a language server the test starts only now: on a loaded machine its start
    // alone took over the 20 s default (the suite under load 12), so wait as long as a hang bound.
    results.seen = (await waitFor(wanted, `${process.env.WATCH_OPTION} = ${process.env.WATCH_VALUE}`, 50000)).update;
  },
  // session/set_model as older clients send it (the SDK has no constant for it any more).
  async setModel(agent) {
    await init(agent);
    const session = await agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    results.session = session;
    results.setModel = await agent.request("session/set_model", {
      sessionId: session.sessionId, modelId: process.env.MODEL,
    });
    for (const [key, params] of [
      ["badModel", { sessionId: session.sessionId, modelId: "nope/none" }],
      ["badSession", { sessionId: "ses_missing", modelId: process.env.MODEL }],
      ["noModel", { sessionId: session.sessionId }],
    ]) {
      try {
        await agent.request("session/set_model", params);
      } catch (error) {
        results[key] = { code: error.code, message: error.message };
      }
    }
    results.prompt = await prompt(agent, session.sessionId, "hello");
  },
};

let failure = null;
try {
  await app.connectWith(stream, async (agent) => {
    await scenarios[scenario](agent);
  });
} catch (error) {
  failure = { message: String(error?.message ?? error), code: error?.code, data: error?.data };
}
proc.stdin.end();
const exit = await new Promise((resolve) => proc.on("exit", (code) => resolve(code)));
process.stdout.write(JSON.stringify({ results, log, failure, agentExit: exit }) + "\n");
