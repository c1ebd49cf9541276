// Copy and Insert-at-cursor on the code blocks of an answer. The buttons post the block's text to the
// extension host, which owns the clipboard and the editor (the webview can reach neither reliably).
import { button, h, type Post } from "./dom.ts";

/** Put a Copy / Insert toolbar above each finished code block inside `root` (once per block). */
export function addCodeActions(root: HTMLElement, post: Post): void {
  for (const pre of root.querySelectorAll<HTMLPreElement>("pre.hljs:not(.streaming)")) {
    if (pre.parentElement?.classList.contains("code-block")) continue;
    const code = (): string => pre.textContent ?? "";
    const language = /language-(\S+)/.exec(pre.querySelector("code")?.className ?? "")?.[1];
    const what = language ? `${language} code` : "code";
    const bar = h(
      "div",
      { class: "code-actions" },
      button("Copy", () => post({ type: "copyCode", text: code() }), { class: "secondary", "data-action": "copy-code", "aria-label": `Copy ${what}`, title: "Copy to the clipboard" }),
      button("Insert", () => post({ type: "insertCode", text: code() }), {
        class: "secondary",
        "data-action": "insert-code",
        "aria-label": `Insert ${what} at the cursor`,
        title: "Replace the editor's selection (or insert at its cursor) with this code",
      }),
    );
    const box = h("div", { class: "code-block" });
    pre.replaceWith(box);
    box.append(bar, pre);
  }
}
