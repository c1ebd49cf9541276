// Tiny DOM helpers: elements are built from text (never from HTML strings), except sanitized Markdown.
import DOMPurify from "dompurify";
import type { FromWebview } from "../src/chat/messages.ts";
import { renderMarkdown } from "./markdown.ts";

type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return el;
}

export function button(label: string, onClick: () => void, attrs: Record<string, string | boolean | undefined> = {}): HTMLButtonElement {
  const el = h("button", { type: "button", ...attrs }, label);
  el.addEventListener("click", (event) => {
    event.stopPropagation();
    onClick();
  });
  return el;
}

const SAFE_URI = /^(https?:|mailto:|#)/i;

// DOMPurify hands back the nodes it checked (RETURN_DOM_FRAGMENT) rather than a string the page
// would parse a second time: half the parsing and half the garbage per Markdown text (a long
// session's older page renders a few hundred), and what is shown is exactly what was checked.
const SANITIZE = {
  ALLOWED_URI_REGEXP: SAFE_URI,
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed"],
  FORBID_ATTR: ["style"],
  RETURN_DOM_FRAGMENT: true as const,
};

/** Markdown as sanitized HTML: markdown-it already escapes raw HTML; DOMPurify is the second line. */
export function setMarkdown(el: HTMLElement, text: string): void {
  el.replaceChildren(DOMPurify.sanitize(renderMarkdown(text), SANITIZE));
}

export type Post = (message: FromWebview) => void;
