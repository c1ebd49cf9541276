import assert from "node:assert/strict";
import { test } from "node:test";
import { droppedUris } from "../webview/drop.ts";

/** A drop's data as the DOM gives it: lower-cased types, getData("") for a type not carried. */
function drop(items: Record<string, string>): Pick<DataTransfer, "getData" | "types"> {
  return { types: Object.keys(items), getData: (type: string) => items[type] ?? "" };
}

test("several Explorer files: every URI from resourceurls, not only the first that text/uri-list keeps", () => {
  const uris = ["file:///w/calc.py", "file:///w/notes.md"];
  assert.deepEqual(droppedUris(drop({ resourceurls: JSON.stringify(uris), "text/uri-list": uris[0], "text/plain": "/w/calc.py" })), uris);
});

test("a folder has no resourceurls: its path from codefiles, made a file URI with its characters escaped", () => {
  assert.deepEqual(droppedUris(drop({ codefiles: JSON.stringify(["/w/my dir/a#b.py"]) })), ["file:///w/my%20dir/a%23b.py"]);
  assert.deepEqual(droppedUris(drop({ codefiles: JSON.stringify(["C:\\w\\calc.py"]) })), ["file:///C:/w/calc.py"]);
});

test("text/uri-list alone: its lines without the comments", () => {
  assert.deepEqual(droppedUris(drop({ "text/uri-list": "# dragged\r\nfile:///w/calc.py\r\n\r\nfile:///w/logo.png" })), ["file:///w/calc.py", "file:///w/logo.png"]);
});

test("files from the system (no VS Code types) and broken data carry no URIs", () => {
  assert.deepEqual(droppedUris(drop({ Files: "" })), []);
  assert.deepEqual(droppedUris(drop({ resourceurls: "{not json", codefiles: "[1, null, \"\"]" })), []);
  assert.deepEqual(droppedUris(drop({ resourceurls: "\"file:///w/a\"" })), []);
});

test("a web link dragged in is no file: left to the text box, which inserts it as text", () => {
  assert.deepEqual(droppedUris(drop({ "text/uri-list": "https://example.com/page", "text/plain": "https://example.com/page" })), []);
  assert.deepEqual(droppedUris(drop({ "text/uri-list": "https://example.com/a\r\nfile:///w/calc.py" })), ["file:///w/calc.py"]);
});
