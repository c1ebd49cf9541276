// Markdown for model output, which is untrusted: raw HTML is not rendered (it shows as text), and only
// web, mail and in-page links survive — javascript:, command:, file:, data: and vscode: links become
// plain text. The webview runs DOMPurify over the result as a second line, and its CSP forbids inline
// scripts anyway. No DOM here, so node's test runner checks the hostile inputs directly.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import MarkdownIt from "markdown-it";

const languages = { bash, css, diff, go, java, javascript, json, python, rust, typescript, xml, yaml };
/** The languages code blocks are highlighted in. */
export const LANGUAGES = Object.keys(languages);
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language);
hljs.registerAliases(["sh", "shell", "zsh"], { languageName: "bash" });
hljs.registerAliases(["js", "jsx", "mjs"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["yml"], { languageName: "yaml" });

const SAFE_URL = /^(https?:|mailto:|#)/i;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const md: MarkdownIt = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: false,
  highlight(code: string, lang: string): string {
    const name = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
    if (name && hljs.getLanguage(name)) {
      try {
        return `<pre class="hljs"><code class="language-${escapeHtml(name)}">${hljs.highlight(code, { language: name, ignoreIllegals: true }).value}</code></pre>`;
      } catch {
        // fall through to plain text
      }
    }
    return `<pre class="hljs"><code>${escapeHtml(code)}</code></pre>`;
  },
});

// markdown-it's own check lets through anything but javascript:/vbscript:/file:/data:; we only allow
// what a chat answer legitimately links to.
md.validateLink = (url: string): boolean => SAFE_URL.test(url.trim());

export function renderMarkdown(text: string): string {
  return md.render(text);
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/**
 * Where a streaming text can be cut so the part before it never renders differently once more text
 * arrives: the last blank line outside a fenced code block. The view renders the stable prefix once
 * and re-renders only the tail on each frame, so long answers stay cheap to stream.
 *
 * The scanner keeps its place: each call reads only the lines completed since the last one, so the
 * work per frame does not grow with the answer. It also knows when the text ends inside a fenced
 * code block (`fenceStart`), which the view then streams as plain text (highlighted once closed).
 */
export class CutScanner {
  /** The latest cut (0: none yet). */
  cut: number;
  /** Every cut found, in order, for a view that renders the stable text a few blocks per frame. */
  readonly cuts: number[] = [];
  /** Where the next unread line starts (the text before it has been scanned). */
  scanned = 0;
  /** The start of the open fence's line when the scanned text ends inside a fenced block, else -1. */
  fenceStart = -1;
  private fence = "";
  private blankBefore = false;

  constructor(from = 0) {
    this.cut = from;
  }

  advance(text: string): number {
    let lineStart = this.scanned;
    for (let end = text.indexOf("\n", lineStart); end >= 0; end = text.indexOf("\n", lineStart)) {
      const line = text.slice(lineStart, end);
      const marker = FENCE.exec(line);
      if (marker) {
        if (this.fenceStart < 0) {
          this.fenceStart = lineStart;
          this.fence = marker[1][0];
        } else if (marker[1][0] === this.fence) {
          this.fenceStart = -1;
        }
      }
      const blank = line.trim() === "";
      if (blank && this.fenceStart < 0 && !this.blankBefore && lineStart > this.cut) {
        this.cut = lineStart;
        this.cuts.push(lineStart);
      }
      this.blankBefore = blank;
      lineStart = end + 1;
    }
    this.scanned = lineStart;
    return this.cut;
  }
}

/** Whether `line` is a code fence (``` or ~~~). */
export function isFence(line: string): boolean {
  return FENCE.test(line);
}

/** The cut of `text` after `from` (see CutScanner), scanning it whole. */
export function stableCut(text: string, from: number): number {
  return new CutScanner(from).advance(text);
}

const TABLE_ROW = /^ {0,3}\|/;
const TABLE_DELIMITER = /^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/**
 * What of a streaming tail can be rendered without a raw table row flashing: a table row still being
 * written (`| a | b` with no line end yet) is held back, and so is a table's header row until its
 * delimiter row (`| --- | --- |`) has arrived — before it, Markdown would show `| a | b |` as text.
 * Everything comes back once the text is complete (`streaming` false).
 */
export function heldBackTail(tail: string, streaming: boolean): string {
  if (!streaming) return tail;
  let end = tail.length;
  const lastBreak = tail.lastIndexOf("\n");
  if (lastBreak < tail.length - 1 && TABLE_ROW.test(tail.slice(lastBreak + 1))) end = lastBreak + 1;
  // The complete lines before `end`: a trailing run of table rows with no delimiter row in second
  // place is a table whose header has come and whose delimiter has not.
  const lines = tail.slice(0, end).split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let first = lines.length;
  while (first > 0 && TABLE_ROW.test(lines[first - 1])) first--;
  const run = lines.slice(first);
  if (run.length === 1 || (run.length > 1 && !TABLE_DELIMITER.test(run[1]))) {
    end = lines.slice(0, first).reduce((n, line) => n + line.length + 1, 0);
  }
  return tail.slice(0, end);
}
