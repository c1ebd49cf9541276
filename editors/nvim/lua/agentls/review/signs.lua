-- The agent's changes still to review, in the buffers of the files they are in: a sign on the lines
-- of every pending hunk (an extmark, so it follows the user's typing), buffer-local keymaps to keep
-- or undo the hunk under the cursor and to jump between hunks. The hunks come from `review.updated`
-- events and `agent/review/list`; keeping and undoing are the server's (`agent/review/keep|undo`):
-- an undo puts back only the agent's lines, through the same `workspace/applyEdit` as the agent's
-- own edits, so what the user typed stays (the server merges against the buffer's unsaved text).
local client = require('agentls.server.client')
local config = require('agentls.config')

local M = {}

M.ns = vim.api.nvim_create_namespace('agentls_review')
M.pending = {} ---@type table<string, table>  pending hunks by id (every session's)
M.marks = {} ---@type table<integer, table<string, integer>>  extmark id by hunk id, by buffer
M.mapped = {} ---@type table<integer, string[]>  the keymaps set in a buffer (lhs list)

local function report(err)
  if err then
    vim.notify('agentls: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    return true
  end
end

--- The absolute path of a hunk's file.
function M.path(hunk)
  if hunk.uri and hunk.uri ~= vim.NIL then
    return vim.uri_to_fname(hunk.uri)
  end
  return config.root() .. '/' .. hunk.file
end

local function strip(lines)
  local out = {}
  for i, line in ipairs(lines or {}) do
    out[i] = (line:gsub('\r?\n$', ''))
  end
  return out
end

-- Where the hunk's lines stand in `lines` now: the exact copy nearest its line in the agent's version
-- (later steps and the user's typing move it), else that line. Returns first, last (0-based rows).
local function locate(lines, hunk)
  local after = strip(hunk.after)
  local count, start = #after, hunk.afterStart or 0
  local max = math.max(#lines - 1, 0)
  if count == 0 or hunk.kind ~= 'text' then
    local row = math.min(start, max)
    return row, row
  end
  local function at(row)
    for i = 1, count do
      if lines[row + i] ~= after[i] then
        return false
      end
    end
    return true
  end
  local last_start = #lines - count
  for distance = 0, math.max(start, last_start - start) do
    for _, row in ipairs({ start - distance, start + distance }) do
      if row >= 0 and row <= last_start and at(row) then
        return row, row + count - 1
      end
    end
  end
  local row = math.min(start, max)
  return row, math.min(row + count - 1, max)
end

local function sign_of(hunk)
  if hunk.kind ~= 'text' then
    return '●', 'AgentlsReviewChange'
  elseif #(hunk.after or {}) == 0 then
    return '▁', 'AgentlsReviewDelete'
  elseif #(hunk.before or {}) == 0 then
    return '+', 'AgentlsReviewAdd'
  end
  return '~', 'AgentlsReviewChange'
end

-- The pending hunks of the file `path`.
local function hunks_of(path)
  local out = {}
  for _, hunk in pairs(M.pending) do
    if M.path(hunk) == path then
      table.insert(out, hunk)
    end
  end
  return out
end

local function unmap(buf)
  for _, spec in ipairs(M.mapped[buf] or {}) do
    pcall(vim.keymap.del, spec[1], spec[2], { buffer = buf })
  end
  M.mapped[buf] = nil
end

local function map(buf)
  if M.mapped[buf] then
    return
  end
  local keys = config.options.keymaps
  local mapped = {}
  local function set(lhs, fn, desc)
    if lhs then
      vim.keymap.set('n', lhs, fn, { buffer = buf, desc = 'agentls: ' .. desc })
      table.insert(mapped, { 'n', lhs })
    end
  end
  set(keys.review_keep, function()
    M.act_at_cursor('keep')
  end, "keep the agent's change under the cursor")
  set(keys.review_undo, function()
    M.act_at_cursor('undo')
  end, "undo the agent's change under the cursor")
  set(keys.review_next, function()
    M.jump(1)
  end, 'next agent change')
  set(keys.review_prev, function()
    M.jump(-1)
  end, 'previous agent change')
  M.mapped[buf] = mapped
end

--- Put the signs of the pending hunks in `buf` (a buffer of a file): hunks already marked keep
--- their extmark (it followed the user's edits); new ones are found in the text.
--- "by @general: fix the parser" for a sub-agent's hunk (shown in its parent's review), else nil.
---@param hunk agentls.ReviewHunk
---@return string?
function M.by(hunk)
  local agent = hunk.agent
  if type(agent) ~= 'table' then -- absent, or vim.NIL: the session's own agent
    return nil
  end
  return ('by @%s: %s'):format(agent.name, agent.description)
end

--- Draw the signs of `buf`'s pending hunks again: new ones added, gone ones removed.
function M.refresh(buf)
  if not vim.api.nvim_buf_is_valid(buf) or not vim.api.nvim_buf_is_loaded(buf) then
    return
  end
  local path = vim.fs.normalize(vim.api.nvim_buf_get_name(buf))
  local marks = M.marks[buf] or {}
  M.marks[buf] = marks
  local wanted = {}
  local lines
  for _, hunk in ipairs(hunks_of(path)) do
    wanted[hunk.id] = true
    if not marks[hunk.id] then
      lines = lines or vim.api.nvim_buf_get_lines(buf, 0, -1, false)
      local first, last = locate(lines, hunk)
      local text, hl = sign_of(hunk)
      local by = M.by(hunk)
      marks[hunk.id] = vim.api.nvim_buf_set_extmark(buf, M.ns, first, 0, {
        end_row = last,
        end_col = 0,
        sign_text = text,
        sign_hl_group = hl,
        priority = 20,
        -- A sub-agent's change says whose it is at the end of its first line.
        virt_text = by and { { by, 'Comment' } } or nil,
        virt_text_pos = by and 'eol' or nil,
      })
    end
  end
  for id, mark in pairs(marks) do
    if not wanted[id] then
      vim.api.nvim_buf_del_extmark(buf, M.ns, mark)
      marks[id] = nil
    end
  end
  if next(marks) then
    map(buf)
  else
    M.marks[buf] = nil
    unmap(buf)
  end
  require('agentls.review.inline').draw(buf) -- the lines each hunk replaced, above it
end

local scheduled = {}
-- Refresh the buffer of `path` (if loaded) on the next turn of the loop, once however many hunks came.
local function refresh_path(path)
  local buf = vim.fn.bufnr(path)
  if buf == -1 or scheduled[buf] then
    return
  end
  scheduled[buf] = true
  vim.schedule(function()
    scheduled[buf] = nil
    M.refresh(buf)
  end)
end

--- Hunks whose state changed (or were listed): pending ones are shown, the others taken away.
function M.update(hunks)
  local paths = {}
  for _, hunk in ipairs(hunks) do
    if hunk.state == 'pending' then
      M.pending[hunk.id] = hunk
    else
      M.pending[hunk.id] = nil
    end
    paths[M.path(hunk)] = true
  end
  for path in pairs(paths) do
    refresh_path(path)
  end
  pcall(vim.cmd, 'redrawstatus!')
end

--- An `agent/event` (registered with the client).
function M.on_event(event)
  if event.type == 'review.updated' then
    M.update((event.properties or {}).changed or {})
  end
end

--- Ask the server for the pending hunks of `session_id` (replacing what is known of them).
function M.load(session_id, done)
  client.request('agent/review/list', { sessionID = session_id }, function(err, result)
    if report(err) then
      return
    end
    local gone = {}
    for id, hunk in pairs(M.pending) do
      if hunk.sessionID == session_id then
        gone[id] = vim.tbl_extend('force', hunk, { state = 'gone' })
      end
    end
    local hunks = result.hunks or {}
    for _, hunk in ipairs(hunks) do
      gone[hunk.id] = nil
    end
    M.update(vim.list_extend(vim.tbl_values(gone), hunks))
    if done then
      done(hunks)
    end
  end)
end

--- The rows (0-based, first and last) of hunk `id`'s extmark in `buf`, or nil.
function M.rows(buf, id)
  local mark = (M.marks[buf] or {})[id]
  if not mark then
    return nil
  end
  local pos = vim.api.nvim_buf_get_extmark_by_id(buf, M.ns, mark, { details = true })
  if not pos[1] then
    return nil
  end
  return pos[1], math.max(pos[1], pos[3].end_row or pos[1])
end

--- The pending hunks of `buf`, by their line now: {hunk, first, last}[] (0-based rows).
function M.in_buffer(buf)
  local out = {}
  for id in pairs(M.marks[buf] or {}) do
    local first, last = M.rows(buf, id)
    if first and M.pending[id] then
      table.insert(out, { hunk = M.pending[id], first = first, last = last })
    end
  end
  table.sort(out, function(a, b)
    return a.first < b.first
  end)
  return out
end

--- The pending hunk under the cursor of the current window, or nil.
function M.at_cursor()
  local buf = vim.api.nvim_get_current_buf()
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  for _, item in ipairs(M.in_buffer(buf)) do
    if row >= item.first and row <= item.last then
      return item.hunk
    end
  end
end

--- Move the cursor to the next (`dir` = 1) or previous (-1) pending hunk, wrapping around.
function M.jump(dir)
  local items = M.in_buffer(vim.api.nvim_get_current_buf())
  if #items == 0 then
    return vim.notify('agentls: no agent change to review here', vim.log.levels.INFO)
  end
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local target
  for _ = 1, vim.v.count1 do
    target = nil
    if dir > 0 then
      for _, item in ipairs(items) do
        if item.first > row then
          target = target or item
        end
      end
      target = target or items[1]
    else
      for _, item in ipairs(items) do
        if item.first < row then
          target = item
        end
      end
      target = target or items[#items]
    end
    row = target.first
  end
  vim.cmd("normal! m'")
  vim.api.nvim_win_set_cursor(0, { row + 1, 0 })
end

--- Keep or undo (`action`) hunks: `params` names them ({sessionID, hunkIDs?, uri?}).
function M.request(action, params, done)
  client.request('agent/review/' .. action, params, function(err, result)
    if report(err) then
      return
    end
    M.update(result.changed or {})
    if #(result.conflicts or {}) > 0 then
      require('agentls.review.conflict').show(result.conflicts, M.pending)
    end
    if done then
      done(result)
    end
  end)
end

--- Keep or undo the hunk under the cursor.
function M.act_at_cursor(action)
  local hunk = M.at_cursor()
  if not hunk then
    return vim.notify('agentls: no agent change under the cursor', vim.log.levels.INFO)
  end
  M.request(action, { sessionID = hunk.sessionID, hunkIDs = { hunk.id } })
end

--- Show the signs of a buffer as it is read (its hunks may have come while it was not loaded).
function M.setup(group)
  require('agentls.ui.highlights').setup() -- the signs' groups (a colour scheme may set its own)
  vim.api.nvim_create_autocmd('BufReadPost', {
    group = group,
    callback = function(ev)
      -- A reload (:e!) put the text back from disk: find the hunks in it again.
      vim.api.nvim_buf_clear_namespace(ev.buf, M.ns, 0, -1)
      M.marks[ev.buf] = nil
      M.refresh(ev.buf)
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    group = group,
    callback = function(ev)
      M.marks[ev.buf], M.mapped[ev.buf] = nil, nil
    end,
  })
end

return M
