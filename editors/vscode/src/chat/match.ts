// Which file a few typed letters mean, for the `@` quick pick's highlighted row (no vscode import:
// unit-tested under node).

/** The item a few typed letters most likely mean: a name starting with them, else one containing them. */
export function bestMatch<T extends { label: string }>(items: T[], typed: string): T | undefined {
  const want = typed.trim().toLowerCase();
  if (!want) return undefined;
  const name = (item: T): string => item.label.toLowerCase().split("/").pop() ?? "";
  return (
    items.find((i) => name(i).startsWith(want)) ??
    items.find((i) => name(i).includes(want)) ??
    items.find((i) => i.label.toLowerCase().includes(want))
  );
}
