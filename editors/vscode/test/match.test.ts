import assert from "node:assert/strict";
import { test } from "node:test";
import { bestMatch } from "../src/chat/match.ts";

const files = ["docs/notes.md", "src/diagram.png", "src/logo.png", "styles.css", "tests/test_styles.py"].map((label) => ({ label }));

test("the typed letters pick a file whose name starts with them, before one that only contains them", () => {
  assert.equal(bestMatch(files, "styles")?.label, "styles.css");
  assert.equal(bestMatch(files, "notes")?.label, "docs/notes.md");
  assert.equal(bestMatch(files, "DIAG")?.label, "src/diagram.png");
  assert.equal(bestMatch(files, "_styles")?.label, "tests/test_styles.py");
});

test("a directory in the typed text matches the path; nothing typed or nothing matching picks nothing", () => {
  assert.equal(bestMatch(files, "src/lo")?.label, "src/logo.png");
  assert.equal(bestMatch(files, "  "), undefined);
  assert.equal(bestMatch(files, "zzz"), undefined);
});
