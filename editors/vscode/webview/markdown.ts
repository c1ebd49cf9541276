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

/**
 * Where a streaming text can be cut so the part before it never renders differently once more text
 * arrives: the last blank line outside a fenced code block. The view renders the stable prefix once
 * and re-renders only the tail on each frame, so long answers stay cheap to stream.
 */
export function stableCut(text: string, from: number): number {
  let cut = from;
  let inFence = false;
  let fence = "";
  let lineStart = 0;
  let blankBefore = false;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && text[i] !== "\n") continue;
    if (i === text.length) break; // the last line is unfinished
    const line = text.slice(lineStart, i);
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (marker) {
      if (!inFence) {
        inFence = true;
        fence = marker[1][0];
      } else if (marker[1][0] === fence) {
        inFence = false;
      }
    }
    const blank = line.trim() === "";
    if (blank && !inFence && !blankBefore && lineStart > from) cut = lineStart;
    blankBefore = blank;
    lineStart = i + 1;
  }
  return cut;
}
