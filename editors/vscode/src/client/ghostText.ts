// Whether VS Code can show an inline completion as ghost text (pure: no `vscode`, unit-tested).
//
// VS Code (1.139, read in its workbench and checked in code-server) shows an item of a stable
// provider only when, on the cursor's line, the replaced text before the cursor is a prefix of the
// new text there and the rest of the replaced text is a subsequence (ignoring case) of the rest of
// the new text: ghost text can add characters, never remove one. Anything else (a rename: `msg`
// becomes `text`) is dropped without a trace; its inline-edit view is for items marked
// `isInlineEdit`, a proposed API. Such an item is shown by the extension instead (inlineEdit.ts).

/** An item on one line: the columns it replaces (`start` ≤ `end`), the text there now, the new text. */
export interface LineEdit {
  start: number;
  end: number;
  old: string;
  text: string;
}

function isSubsequence(part: string, whole: string): boolean {
  let at = 0;
  for (const ch of part) {
    at = whole.indexOf(ch, at);
    if (at < 0) return false;
    at += 1;
  }
  return true;
}

/** Whether ghost text can show `edit` with the cursor at column `cursor` of the same line. */
export function showsAsGhostText(edit: LineEdit, cursor: number): boolean {
  if (edit.old === edit.text) return false;
  const typed = Math.max(0, cursor - edit.start);
  const oldBefore = edit.old.substring(0, typed);
  const newBefore = edit.text.substring(0, typed);
  const oldAfter = edit.old.substring(typed).toLowerCase();
  const newAfter = edit.text.substring(typed).toLowerCase();
  return newBefore.startsWith(oldBefore) && oldAfter.length <= newAfter.length && isSubsequence(oldAfter, newAfter);
}
