-- Attachments: `@path` (and `@path#L3-7` for a range) in a prompt become file parts, and `@` in
-- the prompt buffer completes the project's files.
local config = require('agentls.config')

local M = {}

local cache = { at = 0, files = {} }
local SKIP = { ['.git'] = true, node_modules = true, ['.venv'] = true, __pycache__ = true }
local MAX_FILES = 5000

--- The project's files, relative to the root (git's list when it is a repository).
function M.list()
  local now = vim.uv.now()
  if now - cache.at < 5000 then
    return cache.files
  end
  local root = config.root()
  local files = {}
  local git = vim.fn.executable('git') == 1
    and vim
      .system({ 'git', 'ls-files', '--cached', '--others', '--exclude-standard' }, { cwd = root, text = true })
      :wait(2000)
  if git and git.code == 0 then
    files = vim.split(git.stdout, '\n', { plain = true, trimempty = true })
  else
    for name, kind in
      vim.fs.dir(root, {
        depth = 8,
        skip = function(dir)
          return not SKIP[vim.fs.basename(dir)]
        end,
      })
    do
      if kind == 'file' then
        table.insert(files, name)
        if #files >= MAX_FILES then
          break
        end
      end
    end
    table.sort(files)
  end
  cache = { at = now, files = files }
  return files
end

-- The `@` that starts the word before the cursor (at the line's start or after a space): its
-- 1-based column, else nil (`me@example.com` is not a reference).
local function reference_start(line)
  local at = line:match('.*()@[^%s@]*$')
  if at and (at == 1 or line:sub(at - 1, at - 1):match('%s')) then
    return at
  end
  return nil
end

--- 'completefunc' of the prompt buffer: the files whose path holds the text typed after a
--- word-start `@`; the chosen one replaces exactly that text.
function M.complete(findstart, base)
  if findstart == 1 then
    local at = reference_start(vim.api.nvim_get_current_line():sub(1, vim.fn.col('.') - 1))
    if at then
      require('agentls.context.mcp_resources').fetch() -- a server that started since: listed as the user types
    end
    return at or -3 -- 0-based column after the '@' (the '@' stays); -3: no completion, quietly
  end
  local out = require('agentls.context.items').completions(base) -- @folder: @problems … first
  for _, file in ipairs(M.list()) do
    if base == '' or file:find(base, 1, true) then
      table.insert(out, { word = file, menu = '[file]' })
      if #out >= 200 then
        break
      end
    end
  end
  -- Asked again as the user types: the list narrows to paths holding the text, not only starting with it.
  return { words = out, refresh = 'always' }
end

--- Set up `@` completion in the prompt buffer `buf`: an `@` typed at the start of a word opens the
--- file list without choosing anything (typing goes on narrowing it; <C-n>/<C-p> and <C-y> pick);
--- elsewhere (an e-mail address) it is just an `@`.
function M.completion(buf)
  vim.bo[buf].completefunc = "v:lua.require'agentls.context.files'.complete"
  -- 'completeopt' is buffer-local from Neovim 0.11 on: nothing is inserted until the user picks.
  local local_opt = pcall(function()
    vim.bo[buf].completeopt = 'menuone,noinsert,noselect'
  end)
  vim.keymap.set('i', '@', function()
    local line = vim.api.nvim_get_current_line():sub(1, vim.fn.col('.') - 1)
    if local_opt and reference_start(line .. '@') then
      return '@<C-x><C-u>'
    end
    return '@'
  end, { buffer = buf, expr = true, desc = 'agentls: attach a file' })
end

--- The reference a prompt uses for `path` (and an optional 1-based line range).
function M.reference(path, first, last)
  local rel = vim.fs.relpath and vim.fs.relpath(config.root(), path) or path
  if first then
    return ('@%s#L%d-%d'):format(rel, first, last or first)
  end
  return '@' .. rel
end

--- File parts for the `@path[#Ln-m]` references in `text` that name existing files.
function M.parts(text)
  local parts, seen = {}, {}
  local root = config.root()
  for ref in (' ' .. text):gmatch('%s@([^%s@]+)') do -- word-start `@` only: not an e-mail address
    local path, first, last = ref:match('^(.-)#L(%d+)%-(%d+)$')
    if not path then
      path, first = ref:match('^(.-)#L(%d+)$')
      last = first
    end
    path = (path or ref):gsub('[,.;:!?)]+$', '')
    local abs = vim.fs.normalize(vim.startswith(path, '/') and path or (root .. '/' .. path))
    local key = abs .. (first or '')
    if not seen[key] and vim.fn.filereadable(abs) == 1 then
      seen[key] = true
      local part = { type = 'file', uri = vim.uri_from_fname(abs) }
      if first then
        part.range = {
          start = { line = tonumber(first) - 1, character = 0 },
          ['end'] = { line = tonumber(last) - 1, character = 0 }, -- the server reads end.line inclusive
        }
      end
      table.insert(parts, part)
    end
  end
  return parts
end

return M
