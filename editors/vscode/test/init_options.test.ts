import assert from "node:assert/strict";
import { test } from "node:test";
import { initializationOptions } from "../src/client/init_options.ts";

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
