import assert from "node:assert/strict";
import { test } from "node:test";
import { keyEnvironment, keyVariable } from "../src/keys.ts";

test("a provider's key variable is a valid environment name", () => {
  assert.equal(keyVariable("openai"), "AGENTLS_KEY_OPENAI");
  assert.equal(keyVariable("my-gateway.v2"), "AGENTLS_KEY_MY_GATEWAY_V2");
});

test("the server's environment holds each stored key, and no empty one", () => {
  assert.deepEqual(keyEnvironment({ openai: "sk-1", anthropic: "" }), { AGENTLS_KEY_OPENAI: "sk-1" });
});
