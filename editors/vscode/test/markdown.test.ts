// Model output is untrusted: these inputs must render inert (the e2e test checks the same in Chromium).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CutScanner, renderMarkdown, stableCut } from "../webview/markdown.ts";

describe("hostile Markdown", () => {
  const cases: [string, string][] = [
    ["img onerror", '<img src=x onerror="alert(1)">'],
    ["script", "<script>alert(1)</script>"],
    ["javascript link", "[click](javascript:alert(1))"],
    ["javascript link, mixed case and spaces", "[click]( JaVaScRiPt:alert(1))"],
    ["command link", "[run](command:workbench.action.closeWindow)"],
    ["command autolink", "<command:workbench.action.closeWindow>"],
    ["vscode link", "[open](vscode://file/etc/passwd)"],
    ["data link", "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"],
    ["file link", "[x](file:///etc/passwd)"],
    ["inline html event", '<a href="#" onclick="alert(1)">x</a>'],
    ["image with javascript", "![x](javascript:alert(1))"],
  ];
  for (const [name, input] of cases) {
    test(name, () => {
      const html = renderMarkdown(input);
      assert.doesNotMatch(html, /<script/i);
      assert.doesNotMatch(html, /<img/i);
      assert.doesNotMatch(html, /<[^>]*\son\w+=/i);
      assert.doesNotMatch(html, /href="(?!https?:|mailto:|#)/i);
    });
  }

  test("raw HTML is shown as text, not dropped", () => {
    assert.match(renderMarkdown("<b>bold?</b>"), /&lt;b&gt;bold\?&lt;\/b&gt;/);
  });

  test("web links survive", () => {
    assert.match(renderMarkdown("[docs](https://example.com/a)"), /href="https:\/\/example.com\/a"/);
  });

  test("code blocks are highlighted, unknown languages escaped", () => {
    assert.match(renderMarkdown("```python\ndef f(): pass\n```"), /hljs-keyword/);
    assert.match(renderMarkdown("```nosuchlang\n<script>\n```"), /&(lt|#60);script&(gt|#62);/);
  });
});

describe("incremental rendering", () => {
  const answer = [
    "First paragraph with `code`.",
    "",
    "```python",
    "def f():",
    "",
    "    return 1",
    "```",
    "",
    "- a list",
    "- of items",
    "",
    "Last line, still streaming",
  ].join("\n");

  test("never cuts inside a fenced code block", () => {
    for (let n = 0; n <= answer.length; n++) {
      const text = answer.slice(0, n);
      const cut = stableCut(text, 0);
      const before = text.slice(0, cut);
      const fences = (before.match(/^```/gm) ?? []).length;
      assert.equal(fences % 2, 0, `cut ${cut} of ${JSON.stringify(text)} is inside a fence`);
    }
  });

  test("rendering the stable blocks then the tail equals rendering the whole text", () => {
    let stable = 0;
    let blocks = "";
    for (let n = 1; n <= answer.length; n++) {
      const text = answer.slice(0, n);
      const cut = stableCut(text, stable);
      if (cut > stable) {
        blocks += renderMarkdown(text.slice(stable, cut));
        stable = cut;
      }
    }
    const pieces = blocks + renderMarkdown(answer.slice(stable));
    assert.equal(pieces.replace(/\n/g, ""), renderMarkdown(answer).replace(/\n/g, ""));
  });

  test("the incremental scanner finds the cuts a whole scan finds, reading each line once", () => {
    // Streamed in uneven pieces, as merged deltas arrive.
    const scanner = new CutScanner();
    let at = 0;
    for (const size of [1, 7, 3, 20, 2, 50, 5, 1000]) {
      at = Math.min(answer.length, at + size);
      const text = answer.slice(0, at);
      assert.equal(scanner.advance(text), stableCut(text, 0), `after ${at} characters`);
      assert.equal(scanner.scanned, text.lastIndexOf("\n") + 1);
    }
    assert.deepEqual(scanner.cuts, [...scanner.cuts].sort((a, b) => a - b));
    assert.equal(scanner.cuts.at(-1), scanner.cut);
  });

  test("the scanner knows when the text ends inside a fenced block, and where it opened", () => {
    const open = answer.slice(0, answer.indexOf("    return 1"));
    const scanner = new CutScanner();
    scanner.advance(open);
    assert.equal(open.slice(scanner.fenceStart, scanner.fenceStart + 9), "```python");
    scanner.advance(answer);
    assert.equal(scanner.fenceStart, -1);
  });
});
