-- The chips below the prompt: each context item of the prompt (agentls.context.items) resolved once
-- by the server (agent/context/resolve: read, fetched — a URL's fetch may ask — and counted), shown
-- as `[@ label · N tok]`, wrapped at the prompt window's width (which grows to show them). An item
-- being resolved is not asked for again; one that failed keeps its error until it leaves the
-- prompt; a prompt sent meanwhile waits for them (agentls.chat), so nothing is fetched twice.
local config = require('agentls.config')

local M = {}

M.chips = {} -- the chips shown: { label, tokens, error? }

local ns = vim.api.nvim_create_namespace('agentls_context_items')

local function ctx()
  return require('agentls.context.items')
end

-- One chip's text: `[@label · N tok]` (`[@label · ⚠ error]`).
local function chip_of(chip)
  local size = chip.error and ('⚠ ' .. chip.error) or (chip.tokens .. ' tok')
  return ('[%s %s · %s]'):format(chip.kind == 'editor' and '✎' or '@', chip.label, size)
end

--- The chips' text: `label · N tok` per item (`label · error`).
function M.chip_text()
  return table.concat(vim.tbl_map(chip_of, M.chips), ' ')
end

--- The chips packed into lines of at most `width` display columns (a virtual line does not wrap):
--- a chip wider than a line gets one of its own.
function M.chip_lines(width)
  local lines, line = {}, ''
  for _, chip in ipairs(M.chips) do
    local text = chip_of(chip)
    local joined = line == '' and text or (line .. ' ' .. text)
    if line ~= '' and vim.fn.strdisplaywidth(joined) > width then
      table.insert(lines, line)
      joined = text
    end
    line = joined
  end
  if line ~= '' then
    table.insert(lines, line)
  end
  return lines
end

-- The text columns of the window that shows `buf` (the prompt), or the editor's.
local function text_width(buf)
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    return vim.o.columns
  end
  local info = vim.fn.getwininfo(win)[1]
  return math.max(10, vim.api.nvim_win_get_width(win) - (info and info.textoff or 0))
end

--- Draw the chips of the prompt buffer `buf` (again: its window changed size).
function M.draw(buf)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  local chat = require('agentls.chat')
  if #M.chips == 0 then
    return chat.fit_prompt()
  end
  local key = config.options.keymaps.editor_context
  local hint = ctx().editor_item() and key and ('(%s drops ✎)'):format(key) or ''
  local lines = {}
  for _, text in ipairs(M.chip_lines(text_width(buf))) do
    table.insert(lines, { { text, 'AgentlsChip' } })
  end
  if hint ~= '' then
    table.insert(lines, { { hint, 'AgentlsChipHint' } })
  end
  -- Below the last line: virtual lines above the first one show only when the window is scrolled.
  vim.api.nvim_buf_set_extmark(buf, ns, vim.api.nvim_buf_line_count(buf) - 1, 0, { virt_lines = lines })
  chat.fit_prompt() -- the prompt window grows to show them
end

-- Whether the reference `ref` (`@url:…`, `@server:uri`) in `text` is finished: something follows
-- it, or the user is no longer typing in insert mode. A URL still being typed is not fetched (nor
-- each of its prefixes); a finished one is fetched once, the way the webfetch tool would, and
-- counted. An MCP resource likewise: `docs://r` is not read on the way to `docs://readme`.
local function finished(text, ref)
  local at = 1
  while true do
    local first, last = text:find(ref, at, true)
    if not first then
      return false
    end
    if last < #text or vim.fn.mode():sub(1, 1) ~= 'i' then
      return true
    end
    at = last + 1
  end
end

-- An MCP resource's `server:uri`, as the server labels it.
local function mcp_label(item)
  return item.uri and ((item.server and (item.server .. ':') or '') .. item.uri)
end

-- Keys (item JSON) of the items a request resolves now, and who waits for them (M.after_resolving).
local inflight, waiters = {}, {}

local function wake()
  if next(inflight) ~= nil then
    return
  end
  local ready = waiters
  waiters = {}
  for _, fn in ipairs(ready) do
    fn()
  end
end

--- Whether an item of `text` is being resolved (a URL's fetch may wait for its permission).
function M.resolving(text)
  for _, item in ipairs((ctx().items(text))) do
    if inflight[vim.json.encode(item)] then
      return true
    end
  end
  return false
end

--- The first item of `text` whose resolution failed, as `@kind LABEL: error`; nil when none did.
function M.failed(text)
  for _, item in ipairs((ctx().items(text))) do
    local done = ctx().resolved[vim.json.encode(item)]
    if done and done.error then
      return ('@%s %s: %s'):format(item.kind, done.label or item.url or item.kind, done.error)
    end
  end
  return nil
end

--- The server went away without answering (it died): nothing is being resolved any more, and a
--- prompt that waited goes now (its items are then resolved with it, by the next server).
function M.forget_inflight()
  inflight = {}
  wake()
end

--- Run `fn` once no item is being resolved: a prompt sent meanwhile takes the answer the chips get,
--- instead of having the server fetch (and ask) a second time.
function M.after_resolving(fn)
  table.insert(waiters, fn)
  wake()
end

--- Resolve the prompt's items (each once: those not resolved nor being resolved) and redraw the
--- chips of `buf`. An item that failed keeps its error (no new request, no new permission question
--- at each keystroke) until it leaves the prompt; typing it again tries again.
function M.refresh(buf)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  local items = ctx().items(text)
  local session_id = require('agentls.chat').session_id
  local todo, typing, present = {}, {}, {}
  for _, item in ipairs(items) do
    local key = vim.json.encode(item)
    present[key] = true
    local ref = item.kind == 'url' and ('@url:' .. item.url) or item.kind == 'mcp' and ('@' .. mcp_label(item))
    if ref and not finished(text, ref) then
      typing[key] = true
    elseif not ctx().resolved[key] and not inflight[key] and (item.kind ~= 'url' or session_id) then
      table.insert(todo, item) -- (a URL is fetched in a session: once the chat has one)
    end
  end
  for key, done in pairs(ctx().resolved) do
    if done.error and not present[key] then
      ctx().resolved[key] = nil
    end
  end
  M.chips = {}
  for _, item in ipairs(items) do
    local done = ctx().resolved[vim.json.encode(item)]
    local label = item.path or item.url or item.name or item.session or mcp_label(item) or item.kind
    -- `…`: a URL still being typed; `?`: being counted.
    local pending = { kind = item.kind, label = label, tokens = typing[vim.json.encode(item)] and '…' or '?' }
    table.insert(M.chips, done or pending)
  end
  M.draw(buf)
  if #todo == 0 then
    return
  end
  local keys = vim.tbl_map(vim.json.encode, todo)
  for _, key in ipairs(keys) do
    inflight[key] = true
  end
  require('agentls.server.client').request(
    'agent/context/resolve',
    { sessionID = session_id, items = todo },
    vim.schedule_wrap(function(err, result)
      local answers = not err and result and result.items or {}
      for n, key in ipairs(keys) do
        inflight[key] = nil
        local label = todo[n].path
          or todo[n].url
          or todo[n].name
          or todo[n].session
          or mcp_label(todo[n])
          or todo[n].kind
        ctx().resolved[key] = answers[n]
          or { kind = todo[n].kind, label = label, error = err and (err.message or 'failed') or 'no answer' }
      end
      M.refresh(buf) -- the chips of the text as it is now (no request: all is resolved)
      wake()
    end)
  )
end

--- The chips' highlight groups (a colour scheme may set its own: agentls.ui.highlights).
function M.setup()
  require('agentls.ui.highlights').setup()
end

return M
