-- Context items in the prompt (docs/protocol.md, agent/context/resolve): `@folder:PATH`,
-- `@problems` / `@problems:PATH`, `@terminal`, `@changes`, `@symbol:NAME`, `@url:URL`,
-- `@session:ID`, an MCP server's resource `@server:uri` (agentls.context.mcp_resources), and the automatic
-- editor note (the file, cursor line and selection of the last file
-- window). What only Neovim knows is gathered here — diagnostics from vim.diagnostic, a terminal
-- buffer's last output, a workspace symbol's definition through the attached language servers —
-- and the server formats and counts every item. Chips below the prompt text show each item's tokens
-- (agentls.context.chips); the text the chips counted is what the prompt sends.
local config = require('agentls.config')

local M = {}

M.KINDS = {
  { word = 'folder:', info = "a folder's tree (add !files for its files' text)" },
  { word = 'problems', info = 'the diagnostics of every language server (@problems:PATH: one file)' },
  { word = 'terminal', info = 'the last output of the terminal you used last' },
  { word = 'changes', info = "the working tree's git diff, staged and unstaged" },
  { word = 'symbol:', info = "a workspace symbol's definition (@symbol:NAME)" },
  { word = 'url:', info = 'a web page, fetched like the webfetch tool (@url:https://…)' },
  { word = 'session:', info = 'the summary or final answer of an earlier session (@session:ID)' },
}
local SEVERITIES = { 'error', 'warning', 'information', 'hint' }
local MAX_TERMINAL_LINES = 400
local HAS_011 = vim.fn.has('nvim-0.11') == 1

M.editor_off = false -- the editor chip removed for the prompt being written
M.last = nil -- { path, line, selection? } of the last file window
M.resolved = {} -- JSON of a raw item → its resolved answer (what the chips showed)

--- Completion entries for the text typed after a word-start `@`.
function M.completions(base)
  local out = {}
  for _, kind in ipairs(M.KINDS) do
    if vim.startswith(kind.word, base) then
      table.insert(out, { word = kind.word, menu = '[context]', info = kind.info })
    end
  end
  vim.list_extend(out, require('agentls.context.mcp_resources').completions(base))
  return out
end

-- --- what only the editor knows -------------------------------------------------------------

local function problems(path)
  local bufs = {}
  if path then
    local buf = vim.fn.bufnr(path)
    if buf == -1 then
      return { kind = 'problems', path = path, problems = {} }
    end
    bufs = { buf }
  end
  local out = {}
  for _, d in ipairs(path and vim.diagnostic.get(bufs[1]) or vim.diagnostic.get()) do
    local name = vim.api.nvim_buf_get_name(d.bufnr)
    if name ~= '' then
      table.insert(out, {
        path = name,
        line = d.lnum,
        column = d.col,
        severity = SEVERITIES[d.severity] or 'error',
        message = d.message,
        source = d.source or '',
      })
    end
  end
  return { kind = 'problems', path = path, problems = out }
end

-- The most recently used terminal buffer, or nil.
local function last_terminal()
  local best
  for _, info in ipairs(vim.fn.getbufinfo({ bufloaded = 1 })) do
    if vim.bo[info.bufnr].buftype == 'terminal' and (not best or info.lastused > best.lastused) then
      best = info
    end
  end
  return best and best.bufnr
end

-- A line that looks like a shell prompt with a command after it (`$ make`, `% ls`, `> run`).
local function is_prompt(line)
  return line:sub(1, 80):match('[%$#%%>]%s+%S') ~= nil
end

--- The terminal's last output: from the last command line to the end (the idle prompt after it
--- left out), else its last lines.
function M.terminal_output(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  while #lines > 0 and vim.trim(lines[#lines]) == '' do
    table.remove(lines)
  end
  local stop = #lines
  if stop > 0 and vim.trim(lines[stop]):match('[%$#%%>]$') then
    stop = stop - 1 -- the shell waits at an empty prompt: the output is before it
  end
  local start = math.max(1, stop - MAX_TERMINAL_LINES + 1)
  for n = stop, start, -1 do
    if is_prompt(lines[n]) then
      start = n
      break
    end
  end
  return table.concat(vim.list_slice(lines, start, stop), '\n')
end

local function terminal()
  local buf = last_terminal()
  if not buf then
    return nil, 'no terminal buffer is open'
  end
  return { kind = 'terminal', name = 'terminal', text = M.terminal_output(buf) }
end

-- The definition's lines: the symbol's range when it spans lines, else its block by indentation.
local function definition_text(path, range)
  local buf = vim.fn.bufadd(path)
  vim.fn.bufload(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, range.start.line, -1, false)
  local last = range['end'].line - range.start.line + 1
  if last <= 1 then
    local indent = #(lines[1] or ''):match('^%s*')
    last = 1
    for n = 2, math.min(#lines, 400) do
      local line = lines[n]
      if line:match('%S') then
        if #line:match('^%s*') <= indent then
          if line:match('^%s*[%]})]') or line:match('^%s*end%f[%W]') then
            last = n -- a closing brace or `end` belongs to the block
          end
          break
        end
        last = n
      end
    end
  end
  return table.concat(vim.list_slice(lines, 1, last), '\n')
end

local symbols = {} -- name → { at, item, err }: asked again after 5 s, not at every keystroke

local function symbol(name)
  local cached = symbols[name]
  if cached and vim.uv.now() - cached.at < 5000 then
    return cached.item, cached.err
  end
  local item, err = M.find_symbol(name)
  symbols[name] = { at = vim.uv.now(), item = item, err = err }
  return item, err
end

--- The definition of the workspace symbol `name`, through the attached language servers.
function M.find_symbol(name)
  local own = require('agentls.server.client').id
  for _, c in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    if c.id ~= own then
      local params = { query = name }
      local answer = HAS_011 and c:request_sync('workspace/symbol', params, 3000)
        or c.request_sync('workspace/symbol', params, 3000)
      for _, s in ipairs(answer and answer.result or {}) do
        if s.name == name and s.location and s.location.range then
          local path = vim.uri_to_fname(s.location.uri)
          return {
            kind = 'symbol',
            name = name,
            path = path,
            line = s.location.range.start.line,
            text = definition_text(path, s.location.range),
            symbolKind = (vim.lsp.protocol.SymbolKind[s.kind] or ''):lower(),
          }
        end
      end
    end
  end
  return nil, ('no language server knows a symbol named %q'):format(name)
end

-- --- the prompt's items ---------------------------------------------------------------------

--- The raw items the `@kind[:arg]` references of `text` name (and the errors of those that cannot
--- be gathered), in order.
function M.items(text)
  local items, errors, seen = {}, {}, {}
  for kind, rest in (' ' .. text):gmatch('%s@(%a+)(%S*)') do
    -- `@kind` or `@kind:arg`; punctuation after it is the sentence's (`see @changes.`), and
    -- anything else (`@changes.py`) makes it a file reference, not an item.
    local arg = (rest:match('^:(.*)$') or ''):gsub('[,.;!?)]+$', '')
    if rest ~= '' and not rest:match('^:') and not rest:match('^[,.;:!?)]+$') then
      kind = nil
    end
    local item, err
    if kind == 'folder' and arg ~= '' then
      local path, files = arg:gsub('!files$', '')
      item = { kind = 'folder', path = path, files = files > 0 }
    elseif kind == 'problems' then
      item = problems(arg ~= '' and vim.fs.normalize(vim.fn.fnamemodify(arg, ':p')) or nil)
    elseif kind == 'terminal' then
      item, err = terminal()
    elseif kind == 'changes' then
      item = { kind = 'changes' }
    elseif kind == 'symbol' and arg ~= '' then
      item, err = symbol(arg)
    elseif kind == 'url' and arg ~= '' then
      item = { kind = 'url', url = arg }
    elseif kind == 'session' and arg ~= '' then
      item = { kind = 'session', session = arg }
    end
    local key = item and vim.json.encode(item)
    if item and not seen[key] then
      seen[key] = true
      table.insert(items, item)
    elseif err then
      table.insert(errors, ('@%s: %s'):format(kind, err))
    end
  end
  local kinds = {}
  for _, kind in ipairs(M.KINDS) do
    kinds[kind.word:gsub(':$', '')] = true
  end
  local mcp, failed = require('agentls.context.mcp_resources').items(text, kinds)
  vim.list_extend(items, mcp)
  vim.list_extend(errors, failed)
  local note = M.editor_item()
  if note then
    table.insert(items, note)
  end
  return items, errors
end

--- The automatic editor note's item: the last file window's file, cursor line and selection; nil
--- when the setting is off, the chip was removed, or no file was visited.
function M.editor_item()
  if not config.options.editor_context or M.editor_off or not M.last then
    return nil
  end
  return vim.deepcopy(M.last)
end

--- The prompt parts for `text`: each item's text as the chips showed it, or the item for the server
--- to resolve when it was not resolved yet.
function M.parts(text)
  local items, errors = M.items(text)
  if #errors > 0 then
    vim.notify('agentls: ' .. table.concat(errors, '; '), vim.log.levels.WARN)
  end
  local parts = {}
  for _, item in ipairs(items) do
    local done = M.resolved[vim.json.encode(item)]
    if done and not done.error then
      table.insert(parts, { type = 'context', kind = done.kind, label = done.label, text = done.text })
    else
      table.insert(parts, { type = 'context', item = item })
    end
  end
  M.editor_off = false -- a removed editor chip comes back with the next prompt
  return parts
end

--- Remove (or bring back) the editor chip for the prompt being written.
function M.toggle_editor(buf)
  M.editor_off = not M.editor_off
  require('agentls.context.chips').refresh(buf)
end

-- The file window the user was in before the chat opened: the most recently used project file shown.
local function seed()
  local client = require('agentls.server.client')
  local best
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local b = vim.api.nvim_win_get_buf(win)
    if client.is_project_file(b) then
      local used = vim.fn.getbufinfo(b)[1].lastused
      if not best or used > best.used then
        best = { win = win, buf = b, used = used }
      end
    end
  end
  if best and not M.last then
    local line = vim.api.nvim_win_get_cursor(best.win)[1] - 1
    M.last = { kind = 'editor', path = vim.api.nvim_buf_get_name(best.buf), line = line }
  end
end

--- Follow the file windows (for the editor note) and keep the chips of the prompt buffer `buf`.
function M.attach(buf)
  require('agentls.context.chips').setup()
  require('agentls.context.mcp_resources').fetch()
  seed()
  local group = vim.api.nvim_create_augroup('agentls_context_items', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'CursorMoved', 'ModeChanged' }, {
    group = group,
    callback = function(args)
      local client = require('agentls.server.client')
      -- Only the file in the current window: loading a buffer (a symbol's file) is not visiting it.
      -- (bufload runs its autocommands in a hidden floating window.)
      local floating = vim.api.nvim_win_get_config(0).relative ~= ''
      if
        args.buf == buf
        or floating
        or args.buf ~= vim.api.nvim_get_current_buf()
        or not client.is_project_file(args.buf)
      then
        return
      end
      local mode = vim.fn.mode()
      local line = vim.fn.line('.') - 1
      local last = { kind = 'editor', path = vim.api.nvim_buf_get_name(args.buf), line = line }
      if mode:match('^[vV\22]') then
        local a, b = vim.fn.line('v') - 1, line
        local first, final = math.min(a, b), math.max(a, b)
        local text = vim.api.nvim_buf_get_lines(args.buf, first, final + 1, false)
        last.selection = { startLine = first, endLine = final, text = table.concat(text, '\n') }
      elseif args.event == 'ModeChanged' and M.last and M.last.selection and M.last.path == last.path then
        last.selection = M.last.selection -- leaving visual mode keeps the selection for the note
      end
      M.last = last
    end,
  })
  local key = config.options.keymaps.editor_context
  if key then
    vim.keymap.set('n', key, function()
      M.toggle_editor(buf)
    end, { buffer = buf, desc = 'agentls: drop (or bring back) the editor note for this prompt' })
  end
  vim.api.nvim_create_autocmd('WinResized', { -- the chips wrap at the prompt window's width
    group = group,
    callback = function()
      if vim.tbl_contains(vim.v.event.windows or {}, vim.fn.bufwinid(buf)) then
        require('agentls.context.chips').draw(buf)
      end
    end,
  })
  local timer = vim.uv.new_timer()
  -- InsertLeave: a URL typed last is finished once the user leaves insert mode.
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI', 'BufEnter', 'InsertLeave' }, {
    group = group,
    buffer = buf,
    callback = function()
      timer:stop()
      timer:start(
        300,
        0,
        vim.schedule_wrap(function()
          require('agentls.context.chips').refresh(buf)
        end)
      )
    end,
  })
end

return M
