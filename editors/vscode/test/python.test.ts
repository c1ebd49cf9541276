import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { findPython, newEnough } from "../src/install/python.ts";

// Real interpreters: this machine's Python 3.11+ (AGENTLS_TEST_PYTHON, from the test) and an older one when present.
const current = process.env.AGENTLS_TEST_PYTHON ?? "";
const old = process.env.AGENTLS_TEST_OLD_PYTHON ?? "";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentls-python-"));

function binWith(name: string, target: string): string {
  const bin = fs.mkdtempSync(path.join(dir, "bin-"));
  fs.symlinkSync(target, path.join(bin, name));
  return bin;
}

test("the floor is 3.11", () => {
  for (const [v, ok] of [["3.11.0", true], ["3.13.1", true], ["4.0.0", true], ["3.10.13", false], ["2.7.18", false]] as const) {
    assert.equal(newEnough(v), ok, v);
  }
});

test("python3 on PATH that is new enough is found", { skip: !current }, async () => {
  const found = await findPython("", binWith("python3", current));
  assert.equal(found.problem, undefined);
  assert.match(found.python?.version ?? "", /^3\.(1[1-9]|[2-9]\d)\./);
});

test("no Python on PATH is said so, with the setting to use", async () => {
  const found = await findPython("", fs.mkdtempSync(path.join(dir, "empty-")));
  assert.match(found.problem ?? "", /no Python was found .*python3 and python on PATH.*3\.11 or newer.*python\.defaultInterpreterPath/);
});

test("an older Python on PATH is named with its version", { skip: !old }, async () => {
  const bin = binWith("python3", old);
  const found = await findPython("", bin);
  assert.equal(found.python, undefined);
  assert.match(found.problem ?? "", /agentls needs Python 3\.11 or newer, and .*python3 is Python 3\.10\.\d+/);
});

test("a configured interpreter that is too old is named, not skipped for PATH's", { skip: !old || !current }, async () => {
  const found = await findPython(old, binWith("python3", current));
  assert.equal(found.python, undefined);
  assert.ok((found.problem ?? "").includes(`${old} is Python 3.10`), found.problem);
});

test("a configured interpreter that is not Python is named", async () => {
  const found = await findPython("/bin/true", "");
  assert.equal(found.problem, "python.defaultInterpreterPath points to /bin/true, which does not run as Python.");
});
