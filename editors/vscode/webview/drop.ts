// What a drop on the prompt carries: the files VS Code itself lets the user drag (Explorer, tabs).

/**
 * The data types VS Code puts on a drag of its own files (the DOM gives them lower-cased), fullest
 * first: `resourceurls` lists every dragged file as a URI, `codefiles` as a path; `text/uri-list`
 * carries only the first of several.
 */
export const DROPPED_URI_TYPES = ["resourceurls", "codefiles", "text/uri-list"];

/** The URIs of the files a drop carries from VS Code (none for a drop of system files). */
export function droppedUris(data: Pick<DataTransfer, "getData" | "types">): string[] {
  const list = (type: string): unknown[] => {
    try {
      const parsed: unknown = JSON.parse(data.getData(type) || "[]");
      return Array.isArray(parsed) ? parsed : [];
    } catch {
      return [];
    }
  };
  const strings = (items: unknown[]): string[] => items.filter((i): i is string => typeof i === "string" && i !== "");
  const resources = strings(list("resourceurls"));
  if (resources.length > 0) return resources;
  const paths = strings(list("codefiles"));
  if (paths.length > 0) return paths.map(fileUri);
  if (!data.types.includes("text/uri-list")) return [];
  return data
    .getData("text/uri-list")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#") && !WEB_LINK.test(line));
}

/** A link dragged from a page or a Markdown preview: the text box takes it as text, as before. */
const WEB_LINK = /^(https?|mailto):/i;

/** A file: URI for an absolute path (POSIX or Windows), with its characters escaped. */
function fileUri(path: string): string {
  const slashed = path.replace(/\\/g, "/");
  const encoded = slashed.split("/").map(encodeURIComponent).join("/").replace(/^([A-Za-z])%3A/, "$1:");
  return `file://${encoded.startsWith("/") ? "" : "/"}${encoded}`;
}
