// Format the Neovim plugin's Lua with StyLua, as editors/nvim/stylua.toml says: the npm package is
// StyLua's WebAssembly build (the stylua-bin package downloads a binary at install, which cannot
// work offline), which has no command line: this is one.
//
//   node stylua.mjs [--check] [--config FILE] [DIR_OR_FILE...]   (default: the plugin, editors/nvim)
//
// --check writes nothing and exits 1 naming every file that is not formatted; a bad config or a
// file StyLua cannot parse exits 2.
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as stylua from "@johnnymorganz/stylua";

const plugin = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const check = args.includes("--check");
const at = args.indexOf("--config");
const configPath = at >= 0 ? args[at + 1] : join(plugin, "stylua.toml");
const roots = args.filter((a, i) => a !== "--check" && (at < 0 || (i !== at && i !== at + 1)));

// stylua.toml's keys (the flat ones StyLua documents) and how each becomes the Config's field.
const enums = {
  indent_type: stylua.IndentType,
  line_endings: stylua.LineEndings,
  quote_style: stylua.QuoteStyle,
  call_parentheses: stylua.CallParenType,
  collapse_simple_statement: stylua.CollapseSimpleStatement,
  space_after_function_names: stylua.SpaceAfterFunctionNames,
  block_newline_gaps: stylua.BlockNewlineGaps,
  syntax: stylua.LuaVersion,
};
const numbers = new Set(["column_width", "indent_width"]);

function readConfig(path) {
  const config = {};
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((raw, index) => {
      const line = raw.replace(/#.*$/, "").trim();
      if (!line) return;
      const match = /^([a-z_]+)\s*=\s*(.+)$/.exec(line);
      const fail = (why) => {
        throw new Error(`${path}:${index + 1}: ${why}: ${raw.trim()}`);
      };
      if (!match) fail("not a `key = value` line (sections are not supported)");
      const [, key, text] = match;
      const value = JSON.parse(text.replace(/^'(.*)'$/, '"$1"'));
      if (numbers.has(key)) {
        if (!Number.isInteger(value)) fail(`${key} must be an integer`);
        config[key] = value;
      } else if (key in enums) {
        if (!(value in enums[key])) fail(`${key} must be one of ${Object.keys(enums[key]).filter((k) => isNaN(k))}`);
        config[key] = enums[key][value];
      } else {
        fail(`unknown key ${key}`);
      }
    });
  return config;
}

function luaFiles(path) {
  if (statSync(path).isFile()) return path.endsWith(".lua") ? [path] : [];
  return readdirSync(path)
    .filter((name) => name !== "node_modules")
    .sort()
    .flatMap((name) => luaFiles(join(path, name)));
}

let settings;
try {
  settings = readConfig(configPath);
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
// A Config goes to StyLua by value (wasm-bindgen frees it): a new one for each file.
const config = () => Object.assign(stylua.Config.new(), settings);
const files = (roots.length ? roots : [plugin]).flatMap((root) => luaFiles(resolve(root)));
const unformatted = [];
for (const file of files) {
  const text = readFileSync(file, "utf8");
  let formatted;
  try {
    formatted = stylua.formatCode(text, config(), undefined, stylua.OutputVerification.Full);
  } catch (error) {
    console.error(`${relative(process.cwd(), file)}: ${error}`);
    process.exit(2);
  }
  if (formatted === text) continue;
  unformatted.push(relative(process.cwd(), file));
  if (!check) writeFileSync(file, formatted);
}
if (check && unformatted.length) {
  console.error(`not formatted (node editors/nvim/tooling/stylua.mjs formats them):\n  ${unformatted.join("\n  ")}`);
  process.exit(1);
}
console.log(`${files.length} Lua files ${check ? "checked" : "formatted"}${unformatted.length && !check ? ` (${unformatted.length} changed)` : ""}`);
