import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { checkServerPath } from "../src/client/verify.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentls-verify-"));

function script(name: string, body: string, mode = 0o755): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, body);
  fs.chmodSync(file, mode);
  return file;
}

// Each wrong setting is named with its cause; what can be agentls passes.
const cases: [string, () => string, string | undefined][] = [
  ["missing", () => path.join(dir, "nope"), "which does not exist."],
  ["a folder", () => dir, "which is not a file."],
  ["not executable", () => script("plain", "#!/bin/sh\necho agentls 1\n", 0o644), "which is not executable."],
  ["another program", () => script("other", "#!/bin/sh\necho 'Python 3.11.2'\n"), 'which is not agentls (`--version` printed "Python 3.11.2").'],
  ["silent program", () => script("silent", "#!/bin/sh\nexit 3\n"), "which is not agentls (`--version` printed nothing)."],
  ["a pip console script", () => script("agentls", "#!/usr/bin/python3\nimport sys\nfrom agentls.cli import main\n"), undefined],
  ["a binary that says agentls", () => script("wrapped", "#!/bin/sh\necho \"agentls 0.1.0\"\n"), undefined],
  ["a program that prints agentls to --version", () => script("renamed", `#!/bin/sh\n[ "$1" = --version ] && printf 'agentls 0.1.0\\n'\n`), undefined],
];

for (const [name, make, expected] of cases) {
  test(`server path: ${name}`, async () => {
    const file = make();
    const problem = await checkServerPath(file);
    if (expected === undefined) assert.equal(problem, undefined);
    else assert.equal(problem, `agentls.server.path points to ${file}, ${expected}`);
  });
}
