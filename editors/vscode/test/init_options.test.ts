import assert from "node:assert/strict";
import { test } from "node:test";
import { hostChoice, initializationOptions } from "../src/client/init_options.ts";

test("agentls.host goes to the server as initializationOptions.host when the user set it", () => {
  for (const host of ["never", "auto", "attach"] as const) {
    assert.deepEqual(initializationOptions({ config: {}, nextEdits: false, host }, true), {
      config: {},
      untrusted: false,
      host,
    });
  }
});

test("an unset agentls.host sends no host: the server keeps its own default", () => {
  const options = initializationOptions({ config: { model: "m/x" }, nextEdits: true }, false);
  assert.deepEqual(options, { config: { model: "m/x" }, untrusted: true, nextEdits: true });
  assert.equal("host" in options, false);
});

test("agentls.host remote sends the host address as tcp://HOST:PORT", () => {
  assert.deepEqual(hostChoice("remote", " 127.0.0.1:7450 "), { host: "tcp://127.0.0.1:7450" });
  assert.deepEqual(hostChoice("remote", "devbox.lan:7450"), { host: "tcp://devbox.lan:7450" });
  const options = initializationOptions({ config: {}, nextEdits: false, host: "tcp://127.0.0.1:7450" }, true);
  assert.equal(options.host, "tcp://127.0.0.1:7450");
});

test("agentls.host remote without a usable address sends nothing and names the problem", () => {
  for (const [address, said] of [
    ["", "agentls.hostAddress is empty"],
    ["devbox", 'agentls.hostAddress ("devbox") is not HOST:PORT'],
    ["devbox:port", 'agentls.hostAddress ("devbox:port") is not HOST:PORT'],
    ["a b:1", 'agentls.hostAddress ("a b:1") is not HOST:PORT'],
  ]) {
    const choice = hostChoice("remote", address);
    assert.equal(choice.host, undefined, address);
    assert.ok(choice.problem?.includes(said), `${address}: ${choice.problem}`);
    assert.ok(choice.problem?.endsWith("the server's default is used (AGENTLS_HOST, else in its own process)."), choice.problem);
  }
});

test("the other agentls.host values ignore the address; an unknown value is named", () => {
  assert.deepEqual(hostChoice(undefined, "127.0.0.1:1"), {});
  assert.deepEqual(hostChoice("attach", "127.0.0.1:1"), { host: "attach" });
  assert.match(hostChoice("sometimes", "")?.problem ?? "", /"sometimes" is not one of never, auto, attach, remote/);
});
