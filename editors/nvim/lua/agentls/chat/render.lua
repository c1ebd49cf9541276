-- The transcript buffer of one session: the state's messages and parts laid out as blocks of lines.
--
-- Every message header and part is a block; the view keeps each block's line count, so a change
-- rewrites only its block, and streamed text is appended at the end of its block. Deltas are
-- coalesced: they are written at most once per `coalesce_ms` (less often when the buffer is slow to
-- draw, see agentls.chat.pacing), in one go. Tool lines carry their
-- state in an extmark that is updated in place. Windows whose cursor was on the last line follow
-- the stream; the others keep their cursor and scroll. A rebuild (opening, a page of older
-- messages) goes a chunk of lines per turn of the loop: agentls.chat.rebuild.
local State = require('agentls.state')
local pacing = require('agentls.chat.pacing')
local parts = require('agentls.chat.parts')
local subtasks = require('agentls.chat.subtasks')
local rebuild = require('agentls.chat.rebuild')

local M = {}
local View = {}
View.__index = View

M.ns = vim.api.nvim_create_namespace('agentls.transcript')
M.views = {} ---@type table<integer, table>  view by buffer

--- A view of `session_id` from `state` in buffer `buf`.
function M.new(state, session_id, buf, opts)
  local view = setmetatable({
    state = state,
    session_id = session_id,
    buf = buf,
    coalesce_ms = opts and opts.coalesce_ms or 16,
    blocks = {}, -- ordered by sort key
    by_key = {},
    starts_valid = 0, -- blocks[1..starts_valid] have a correct .start
    pending = {}, -- block key -> chunks of text not yet written
    pending_order = {},
    writes = 0, -- buffer writes done (the bench counts them)
    pacer = pacing.new(buf),
  }, View)
  M.views[buf] = view
  view.unsubscribe = state:subscribe(function(kind, sid, data)
    if sid == session_id then
      view:on_change(kind, data)
    elseif kind == 'part' or kind == 'delta' or kind == 'message' then
      view:child_changed(sid) -- a sub-agent's step: its task's fold
    end
  end)
  view:reset()
  return view
end

function View:destroy()
  if self.timer then
    self.timer:stop()
    self.timer:close()
    self.timer = nil
  end
  self.unsubscribe()
  self.pacer:destroy()
  M.views[self.buf] = nil
end

-- --- layout ------------------------------------------------------------------------------

local function header_key(mid)
  return mid .. '\1'
end

local function part_key(mid, pid)
  return mid .. '\2' .. pid
end

local function footer_key(mid)
  return mid .. '\3'
end

local REVERT_SUFFIX = '\0'
local TODOS_KEY = '~todos'
M.TODOS_KEY = TODOS_KEY

--- The blocks of message `m`, in order: the revert marker when the revert starts at it, its header
--- (`before`: the info of the message above it in the same turn, if any), its parts, its footer.
function View:message_blocks(m, before, reverted_here)
  local mid = m.info.id
  local blocks = {}
  if reverted_here then
    table.insert(blocks, { key = mid .. REVERT_SUFFIX, make = parts.revert_marker })
  end
  table.insert(blocks, {
    key = header_key(mid),
    make = function()
      return parts.header(m.info, before)
    end,
  })
  for _, part in ipairs(m.parts) do
    table.insert(blocks, {
      key = part_key(mid, part.id),
      make = function()
        return subtasks.decorate(self.state, part, parts.part(State.settle(part)), parts.tool_subject)
      end,
    })
  end
  table.insert(blocks, {
    key = footer_key(mid),
    make = function()
      return parts.footer(m.info)
    end,
  })
  for i, block in ipairs(blocks) do
    block.mid, block.nth = mid, i
  end
  return blocks
end

--- The blocks the state asks for, in order: {key, make = fn() -> {lines, fold?, tool?, stream?}}.
--- Rendering is deferred to `make` so that a change re-renders only its own block.
--- While older blocks are still to come (`self.from`, see View:reset), only those from there on;
--- with `upto`, only those of the messages up to that one.
function View:wanted(upto)
  local out = {}
  local t = self.state.transcripts[self.session_id] or { order = {}, messages = {} }
  local session = self.state.sessions[self.session_id]
  local revert = session and session.revert and session.revert.messageID
  local from = self.from
  local previous = nil
  if not from then
    table.insert(out, require('agentls.chat.history').block(self.session_id)) -- "older messages: gL"
  end
  for _, mid in ipairs(t.order) do
    if upto and mid > upto then
      return out
    end
    local m = t.messages[mid]
    local shown = not from or mid > from.mid
    if revert and mid == revert then
      previous = nil -- the marker splits the turn
    end
    if shown or mid == from.mid then
      local blocks = self:message_blocks(m, previous, revert ~= nil and mid == revert)
      for i = shown and 1 or from.skip + 1, #blocks do
        table.insert(out, blocks[i])
      end
    end
    previous = m.info
  end
  local todos = self.state.todos[self.session_id]
  if todos and #todos > 0 then
    table.insert(out, {
      key = TODOS_KEY,
      make = function()
        return parts.todos(todos)
      end,
    })
  end
  return out
end

-- Where `id` is in the sorted list `order` (message ids sort in creation order), or nil.
local function position(order, id)
  local lo, hi = 1, #order
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    if order[mid] == id then
      return mid
    elseif order[mid] < id then
      lo = mid + 1
    else
      hi = mid - 1
    end
  end
end

--- Re-render `keys`, blocks of message `mid` (adding the message's new blocks where they belong),
--- looking at that message only: a long chat gets such an event at every tool state, new part, step
--- and token count, and walking its thousands of blocks for each took milliseconds (issue 29).
--- False, having changed nothing, when the message is not shown whole or one of its blocks went or
--- moved: View:sync then looks at the whole list.
function View:sync_message(mid, keys)
  if self.from and mid <= self.from.mid then
    return false
  end
  local t = self.state.transcripts[self.session_id]
  local m = t and t.messages[mid]
  local at = m and position(t.order, mid)
  if not at then
    return false
  end
  -- Its blocks in the buffer, one run, looked for from the end (where a turn changes things).
  local blocks, last = self.blocks, nil
  for i = #blocks, 1, -1 do
    local block_mid = blocks[i].mid
    if block_mid == mid then
      last = i
      break
    elseif block_mid and block_mid < mid then
      return false
    end
  end
  if not last then
    return false
  end
  local first = last
  while first > 1 and blocks[first - 1].mid == mid do
    first = first - 1
  end
  local session = self.state.sessions[self.session_id]
  local reverted_here = session ~= nil and session.revert ~= nil and session.revert.messageID == mid
  local before = (at > 1 and not reverted_here) and t.messages[t.order[at - 1]].info or nil
  local wanted = self:message_blocks(m, before, reverted_here)
  -- The blocks shown must all be wanted still, in the same order (new ones may come between).
  local i = first
  for _, w in ipairs(wanted) do
    if i <= last and blocks[i].key == w.key then
      i = i + 1
    end
  end
  if i ~= last + 1 then
    return false
  end
  local index = first
  for j, w in ipairs(wanted) do
    local block = blocks[index]
    if not block or block.key ~= w.key then -- a new block: in the list first, its lines below
      block = { key = w.key, mid = mid, render = { lines = {} }, size = 0 }
      table.insert(blocks, index, block)
      self.by_key[w.key] = block
      self.starts_valid = math.min(self.starts_valid, index - 1)
      keys[w.key] = true
    end
    block.nth = j
    if keys[w.key] then
      self:replace(index, w.make())
    end
    index = index + 1
  end
  return true
end

function View:start_of(index)
  local blocks = self.blocks
  local row = 0
  if self.starts_valid > 0 then
    local last = blocks[math.min(self.starts_valid, index)]
    row = last.start
    for i = math.min(self.starts_valid, index), index - 1 do
      row = row + blocks[i].size
      blocks[i + 1].start = row
    end
  else
    for i = 1, index - 1 do
      blocks[i].start = row
      row = row + blocks[i].size
    end
    blocks[index].start = row
  end
  self.starts_valid = math.max(self.starts_valid, index)
  return blocks[index].start
end

function View:index_of(key)
  for i, b in ipairs(self.blocks) do
    if b.key == key then
      return i
    end
  end
end

local size_of, block_lines = rebuild.size_of, rebuild.block_lines

-- --- writing -----------------------------------------------------------------------------

function View:followers()
  local out = {}
  local last = vim.api.nvim_buf_line_count(self.buf)
  for _, win in ipairs(vim.fn.win_findbuf(self.buf)) do
    if vim.api.nvim_win_get_cursor(win)[1] >= last - 1 then
      table.insert(out, win)
    end
  end
  return out
end

--- Put `win`'s cursor at the end of the text of `buf` (the end of its last line that is not the
--- blank line ending each block), so that the window shows the newest text: on the blank line, a
--- last paragraph taller than the window would be scrolled out of sight.
function M.follow(win, buf)
  local row = vim.api.nvim_buf_line_count(buf)
  local line = vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1]
  if line == '' and row > 1 then
    row = row - 1
    line = vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1]
  end
  vim.api.nvim_win_set_cursor(win, { row, math.max(0, #line - 1) })
end

function View:write(fn)
  local follow = self:followers()
  vim.bo[self.buf].modifiable = true
  fn()
  vim.bo[self.buf].modifiable = false
  self.writes = self.writes + 1
  for _, win in ipairs(follow) do
    if vim.api.nvim_win_is_valid(win) then
      M.follow(win, self.buf)
    end
  end
end

function View:decorate(block, row)
  local tool = block.render.tool
  if tool then
    block.mark = vim.api.nvim_buf_set_extmark(self.buf, M.ns, row, 0, {
      id = block.mark,
      virt_text = { { tool.label, tool.hl } },
      virt_text_pos = 'eol',
      hl_mode = 'combine',
    })
  elseif block.mark then
    vim.api.nvim_buf_del_extmark(self.buf, M.ns, block.mark)
    block.mark = nil
  end
end

--- Rebuild the whole buffer from the state: its newest lines now, the older ones in later turns
--- (agentls.chat.rebuild).
function View:reset()
  rebuild.reset(self)
end

--- Bring the block list in line with the state: re-render `keys` (or insert them where they belong).
--- With `mid`, the message they all belong to: only that message is looked at when that is enough.
function View:sync(keys, mid)
  if mid and self:sync_message(mid, keys) then
    return
  end
  local wanted = self:wanted()
  local wanted_keys = {}
  for _, w in ipairs(wanted) do
    wanted_keys[w.key] = w
  end
  -- Blocks that are gone.
  for i = #self.blocks, 1, -1 do
    local block = self.blocks[i]
    if not wanted_keys[block.key] then
      local start = self:start_of(i)
      -- The layout first: 'foldexpr' runs during the write and reads it.
      table.remove(self.blocks, i)
      self.by_key[block.key] = nil
      self.starts_valid = math.min(self.starts_valid, i - 1)
      self.total = self.total - block.size
      self:write(function()
        vim.api.nvim_buf_set_lines(self.buf, start, start + block.size, false, {})
      end)
      if block.mark then
        pcall(vim.api.nvim_buf_del_extmark, self.buf, M.ns, block.mark)
      end
    end
  end
  -- New and changed blocks, walking both lists in order.
  for i, w in ipairs(wanted) do
    local block = self.by_key[w.key]
    if not block then
      block = { key = w.key, mid = w.mid, nth = w.nth, render = { lines = {} }, size = 0 }
      table.insert(self.blocks, i, block)
      self.by_key[w.key] = block
      self.starts_valid = math.min(self.starts_valid, i - 1)
      keys[w.key] = true
    end
    if keys[w.key] then
      self:replace(i, w.make())
    end
  end
end

function View:replace(index, render)
  local block = self.blocks[index]
  local start = self:start_of(index)
  local chunks = self.pending[block.key]
  if chunks and block.render.stream and #block.render.lines > 0 then
    -- The part's update caught up with deltas still waiting for their frame: write them first,
    -- so the buffer likely holds the final text already.
    self.pending[block.key] = nil
    self:append(index, table.concat(chunks))
  end
  local old = block.size
  local unchanged = vim.deep_equal(block.render.lines, render.lines) and not self.pending[block.key]
  block.render = render
  block.size = size_of(render)
  if unchanged then
    -- Typically a streamed part's final update: the buffer already holds its text, and rewriting
    -- a long answer would re-highlight and re-fold all of it for nothing.
    return self:decorate(block, start)
  end
  self.pending[block.key] = nil
  -- An empty buffer still has one line: the first lines written replace it.
  local last = self.total == 0 and -1 or start + old
  -- The layout before the write: 'foldexpr' runs during it, and reads the block starts.
  self.total = self.total - old + block.size
  if block.size ~= old then
    self.starts_valid = math.min(self.starts_valid, index)
  end
  self:write(function()
    vim.api.nvim_buf_set_lines(self.buf, start, last, false, block_lines(render))
  end)
  self:decorate(block, start)
end

--- Append streamed text at the end of a block (its last content line).
function View:append(index, text)
  local block = self.blocks[index]
  local start = self:start_of(index)
  local row = start + #block.render.lines - 1
  local last = block.render.lines[#block.render.lines]
  local pieces = vim.split(text, '\n', { plain = true })
  -- The layout before the write: 'foldexpr' runs during it.
  block.render.lines[#block.render.lines] = last .. pieces[1]
  for i = 2, #pieces do
    table.insert(block.render.lines, pieces[i])
  end
  if #pieces > 1 then
    block.size = block.size + #pieces - 1
    self.total = self.total + #pieces - 1
    self.starts_valid = math.min(self.starts_valid, index)
  end
  self:write(function()
    vim.api.nvim_buf_set_text(self.buf, row, #last, row, #last, pieces)
  end)
end

function View:flush()
  if self.timer then -- everything pending goes now
    self.timer:stop()
    self.timer:close()
    self.timer = nil
  end
  local order, pending = self.pending_order, self.pending
  self.pending, self.pending_order = {}, {}
  if not vim.api.nvim_buf_is_valid(self.buf) or #order == 0 then
    return
  end
  local start = vim.uv.hrtime()
  for _, key in ipairs(order) do
    local text = pending[key] and table.concat(pending[key])
    local block = self.by_key[key]
    if text and block and block.render.stream and #block.render.lines > 0 then
      self:append(self:index_of(key), text)
    elseif text then
      self:sync({ [key] = true }, block and block.mid)
    end
  end
  self.pacer:wrote((vim.uv.hrtime() - start) / 1e6)
end

function View:schedule_flush()
  if self.timer then
    return
  end
  self.timer = vim.uv.new_timer()
  self.timer:start(
    self.pacer:interval(self.coalesce_ms),
    0,
    vim.schedule_wrap(function()
      self:flush()
    end)
  )
end

--- A child session (a sub-agent) changed: redraw the task block that shows it, at the next flush.
function View:child_changed(child)
  self.cards = self.cards or {}
  local key = self.cards[child] or subtasks.card_of(self.state, self.session_id, child, part_key)
  if not key or not vim.api.nvim_buf_is_valid(self.buf) then
    return
  end
  self.cards[child] = key
  if not self.pending[key] then
    self.pending[key] = { '' }
    table.insert(self.pending_order, key)
  end
  self:schedule_flush()
end

function View:on_change(kind, data)
  if not vim.api.nvim_buf_is_valid(self.buf) then
    return
  end
  if kind == 'delta' then
    local key = part_key(data.messageID, data.partID)
    local chunks = self.pending[key]
    if not chunks then
      self.pending[key] = { data.delta }
      table.insert(self.pending_order, key)
    else
      chunks[#chunks + 1] = data.delta
    end
    self.pacer:stream()
    self:schedule_flush()
  elseif kind == 'reset' then
    self:reset()
  elseif kind == 'older' then
    rebuild.show_older(self)
  elseif kind == 'part' then
    self:sync({ [part_key(data.messageID, data.partID)] = true }, data.messageID)
  elseif kind == 'message' then
    self:sync({ [header_key(data.messageID)] = true, [footer_key(data.messageID)] = true }, data.messageID)
  elseif kind == 'removed' or kind == 'session' then
    local keys = {}
    local session = self.state.sessions[self.session_id]
    if session and session.revert then
      keys[session.revert.messageID .. REVERT_SUFFIX] = true
    end
    self:sync(keys)
  elseif kind == 'todos' then
    self:sync({ [TODOS_KEY] = true })
  elseif kind == 'status' and data.type == 'idle' then
    self:flush()
    self.pacer:ended()
  end
end

-- --- folds -------------------------------------------------------------------------------

--- 'foldexpr' of transcript windows: reasoning and tool output fold.
function M.foldexpr(lnum)
  local view = M.views[vim.api.nvim_get_current_buf()]
  if not view or #view.blocks == 0 then
    return 0
  end
  local row = lnum - 1
  view:start_of(#view.blocks)
  local lo, hi = 1, #view.blocks
  while lo < hi do -- the last block starting at or before `row`
    local mid = math.floor((lo + hi + 1) / 2)
    if view.blocks[mid].start <= row then
      lo = mid
    else
      hi = mid - 1
    end
  end
  local block = view.blocks[lo]
  local fold = block.render.fold
  if not fold then
    return 0
  end
  local rel = row - block.start
  if rel == fold[1] then
    return '>1'
  elseif rel > fold[1] and rel < #block.render.lines then
    return 1
  end
  return 0
end

return M
