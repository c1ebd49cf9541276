-- The rendering code on recorded event streams (fixtures/*.json, from a real server run): the
-- incremental path (appends, inserts, in-place updates, coalesced deltas) must give the same buffer
-- as rendering the stored messages from scratch, whatever the flush timing; plus folds, cursor
-- following, the retry countdown and todos.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local State = require('agentls.state')
local render = require('agentls.chat.render')
local rebuild = require('agentls.chat.rebuild')
local chat = require('agentls.chat')

local function fixture(name)
  local path = os.getenv('AGENTLS_FIXTURES') .. '/' .. name .. '.json'
  return vim.json.decode(table.concat(vim.fn.readfile(path), '\n'), { luanil = { object = true } })
end

local function scratch()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].undolevels = -1
  return buf
end

local function from_scratch(data)
  local state = State.new()
  for _, e in ipairs(data.events) do
    if e.type == 'session.created' or e.type == 'session.updated' then
      state:apply(e)
    end
  end
  state:load(data.session, data.messages)
  local buf = scratch()
  local view = render.new(state, data.session, buf, {})
  local text = T.text(buf)
  view:destroy()
  return text
end

local function replay(data, every)
  local state = State.new()
  local buf = scratch()
  local view = render.new(state, data.session, buf, { coalesce_ms = 1e6 }) -- flushed by hand
  for i, e in ipairs(data.events) do
    state:apply(e)
    if i % every == 0 then
      view:flush()
    end
  end
  view:flush()
  return view, buf, state
end

for _, name in ipairs({ 'edit_turn', 'retry_turn' }) do
  local data = fixture(name)
  local expected = from_scratch(data)
  for _, every in ipairs({ 1, 2, 7, 1000000 }) do
    local view, buf = replay(data, every)
    T.eq(expected, T.text(buf), ('%s replayed with a flush every %d events'):format(name, every))
    view:destroy()
  end
end

-- What the edit turn reads like.
local data = fixture('edit_turn')
local view, buf, state = replay(data, 3)
local text = T.text(buf)
for _, want in ipairs({
  '## You\n\nsay bye instead of hello\n',
  '▸ Thinking\nThe greeting is in hello.py.\nI should change it.\n',
  'I will change the greeting.\n\nFirst, the edit:\n',
  '⚙ edit: hello.py\n    Edited hello.py',
  'Done: `hello.py` now prints **bye**.\n\n- one change\n- no test needed\n',
}) do
  T.ok(text:find(want, 1, true), vim.inspect(want) .. ' in:\n' .. text)
end
-- One header for the turn's answer, though it took two steps (two assistant messages).
local _, headers = text:gsub('## Agent', '')
T.eq(1, headers, 'agent headers in:\n' .. text)
T.ok(text:find('## Agent · build · fake/m\n', 1, true), 'the header names agent and model:\n' .. text)
-- A step on another model says so.
local parts = require('agentls.chat.parts')
local first = { role = 'assistant', agent = 'build', providerID = 'fake', modelID = 'm' }
T.eq({}, parts.header(first, first).lines, 'same model: no header')
T.eq({ '## Agent · build · fake/m2' }, parts.header(vim.tbl_extend('force', first, { modelID = 'm2' }), first).lines,
  'another model: the header again')
T.eq({ '## Agent · build · fake/m' }, parts.header(first, { role = 'user' }).lines, 'after the prompt: the header')
local marks = vim.api.nvim_buf_get_extmarks(buf, render.ns, 0, -1, { details = true })
T.eq(1, #marks, 'one tool extmark')
T.eq('✓ done', marks[1][4].virt_text[1][1], 'tool state')

-- Folds: reasoning and tool output are folded, text is not.
vim.api.nvim_win_set_buf(0, buf)
chat.style_transcript(0)
local lines = T.lines(buf)
local function row_of(prefix)
  for i, line in ipairs(lines) do
    if vim.startswith(line, prefix) then
      return i
    end
  end
  error('no line starting with ' .. prefix)
end
T.ok(vim.fn.foldclosed(row_of('▸ Thinking')) > 0, 'reasoning folded')
T.ok(vim.fn.foldclosed(row_of('    Edited hello.py')) > 0, 'tool output folded')
T.eq(-1, vim.fn.foldclosed(row_of('⚙ edit')), 'tool line visible')
T.eq(-1, vim.fn.foldclosed(row_of('Done:')), 'text visible')
vim.wo.foldenable = false

-- Folds when parallel tools finish out of order: each tool's output folds under its own line,
-- whichever finishes first (foldexpr runs during the write, so the block starts must be right then).
do
  local fstate = State.new()
  local fbuf = scratch()
  vim.cmd('tabnew')
  vim.api.nvim_win_set_buf(0, fbuf)
  chat.style_transcript(0)
  local fview = render.new(fstate, 'ses_f', fbuf, { coalesce_ms = 1e6 })
  local function emit(kind, properties)
    fstate:apply({ type = kind, properties = properties })
  end
  local function tool(id, status, output)
    emit('message.part.updated', { part = { id = id, messageID = 'msg_f', sessionID = 'ses_f', type = 'tool',
      tool = 'bash', callID = id, state = { status = status, input = { command = 'echo ' .. id },
      output = output, title = 'echo ' .. id } } })
  end
  emit('message.updated', { info = { id = 'msg_f', sessionID = 'ses_f', role = 'assistant', agent = 'build' } })
  tool('prt_1', 'running')
  tool('prt_2', 'running')
  tool('prt_3', 'running')
  tool('prt_3', 'completed', 'third\nthird 2\nthird 3')
  tool('prt_1', 'completed', 'first\nfirst 2')
  tool('prt_2', 'completed', 'second\nsecond 2\nsecond 3\nsecond 4')
  local flines = T.lines(fbuf)
  local function fold_of(line)
    for i, l in ipairs(flines) do
      if l == line then
        return vim.fn.foldclosed(i), i
      end
    end
    error('no line ' .. line .. ' in:\n' .. table.concat(flines, '\n'))
  end
  for _, id in ipairs({ 'prt_1', 'prt_2', 'prt_3' }) do
    local closed, row = fold_of('⚙ bash: echo ' .. id)
    T.eq(-1, closed, id .. "'s tool line visible")
    local word = ({ prt_1 = 'first', prt_2 = 'second', prt_3 = 'third' })[id]
    T.eq(row + 1, (fold_of('    ' .. word)), id .. "'s output folded under its line:\n" .. table.concat(flines, '\n'))
    T.eq(row + 1, (fold_of('    ' .. word .. ' 2')), id .. "'s second output line in the same fold")
  end
  fview:destroy()
  vim.cmd('tabclose')
end

-- Streaming: a burst of deltas is one buffer write; a window at the bottom follows, one that left
-- it keeps its cursor and scroll.
local last_text
for _, part in ipairs(state.transcripts[data.session].messages[state.transcripts[data.session].order[#state.transcripts[data.session].order]].parts) do
  if part.type == 'text' then
    last_text = part
  end
end
view.coalesce_ms = 16
vim.cmd('split')
local follower = vim.api.nvim_get_current_win()
vim.api.nvim_win_set_cursor(follower, { vim.api.nvim_buf_line_count(buf), 0 })
vim.cmd('wincmd p')
local reader = vim.api.nvim_get_current_win()
vim.api.nvim_win_set_cursor(reader, { 3, 0 })
local top = vim.fn.line('w0', reader)
local writes = view.writes
for i = 1, 500 do
  state:apply({ type = 'message.part.delta', properties = { sessionID = data.session,
    messageID = last_text.messageID, partID = last_text.id, field = 'text', delta = (i % 50 == 0) and '\n' or 'x' } })
end
T.eq(writes, view.writes, 'no write before the coalescing timer')
T.wait(function()
  return view.writes > writes
end, 'the coalesced write', 2000)
T.eq(writes + 1, view.writes, 'one write for 500 deltas')
T.eq({ 3, 0 }, vim.api.nvim_win_get_cursor(reader), 'reader cursor kept')
T.eq(top, vim.fn.line('w0', reader), 'reader scroll kept')
-- The follower's cursor at the end of the newest text (the line above the blank that ends a block):
-- on the blank line, a last paragraph taller than the window would be out of sight.
local count = vim.api.nvim_buf_line_count(buf)
T.eq({ count - 1, math.max(0, #T.lines(buf)[count - 1] - 1) }, vim.api.nvim_win_get_cursor(follower), 'follower at the end')
T.eq(from_scratch({ session = data.session, events = data.events,
  messages = (function()
    local out = {}
    for _, id in ipairs(state.transcripts[data.session].order) do
      local m = state.transcripts[data.session].messages[id]
      table.insert(out, { info = m.info, parts = m.parts })
    end
    return out
  end)() }), T.text(buf), 'streamed text = rendered from scratch')

-- The part's final update (its whole text again, as the server sends it when the part ends) costs
-- no rewrite: deltas still waiting for their frame are appended, and the block is left as it is
-- (rewriting a long answer re-highlights and re-folds all of it: bench/nvim_stream.py).
local function delta(text)
  state:apply({ type = 'message.part.delta', properties = { sessionID = data.session,
    messageID = last_text.messageID, partID = last_text.id, field = 'text', delta = text } })
end
delta('\nand a last line')
local final = vim.tbl_extend('force', State.settle(last_text), {})
final.__chunks = nil
local tick, before_final = vim.b[buf].changedtick, view.writes
state:apply({ type = 'message.part.updated', properties = { part = final } })
T.eq(before_final + 1, view.writes, 'one write: the pending delta')
T.ok(vim.endswith(T.text(buf), 'and a last line\n'), 'the pending delta written:\n' .. T.text(buf))
tick = vim.b[buf].changedtick
state:apply({ type = 'message.part.updated', properties = { part = vim.deepcopy(final) } })
T.eq(tick, vim.b[buf].changedtick, 'the same text again: the buffer untouched')

-- Todos appear as a block at the end, and change in place.
state:apply({ type = 'todo.updated', properties = { sessionID = data.session, todos = {
  { content = 'fix add', status = 'completed', priority = 'high' },
  { content = 'write notes', status = 'in_progress', priority = 'low' } } } })
T.ok(vim.endswith(T.text(buf), '### Todo\n- [x] fix add\n- [~] write notes\n'), 'todos:\n' .. T.text(buf))
view:destroy()

-- Retry: the countdown while the server waits, then busy again.
local retry = fixture('retry_turn')
local rstate = require('agentls').state
local saw_retry
for _, e in ipairs(retry.events) do
  rstate:apply(e)
  if e.type == 'session.status' and e.properties.status.type == 'retry' then
    chat.session_id = retry.session
    saw_retry = require('agentls.chat.winbar').status_text(retry.session)
  end
end
T.ok(saw_retry and saw_retry:match('^retrying in %d+s %(attempt 1%)$'), 'retry countdown, got ' .. tostring(saw_retry))
T.eq('idle', require('agentls.chat.winbar').status_text(retry.session), 'idle at the end')
local rbuf = scratch()
local rview = render.new(rstate, retry.session, rbuf, {})
T.ok(T.text(rbuf):find('↻ retry 1: fake returned HTTP 503', 1, true), 'the retry line:\n' .. T.text(rbuf))
rview:destroy()

-- Pacing (agentls.chat.pacing): the time Neovim takes to draw a transcript window is measured; a slow
-- draw while a turn streams spaces the writes and pauses the windows' highlighting (the buffer's
-- syntax stays), and the end of the turn brings it back.
local pacing = require('agentls.chat.pacing')
local pstate = State.new()
local pbuf = vim.api.nvim_create_buf(false, true)
vim.bo[pbuf].filetype = 'markdown'
vim.cmd('only')
vim.api.nvim_win_set_buf(0, pbuf)
local pwin = vim.api.nvim_get_current_win()
chat.style_transcript(pwin)
local pview = render.new(pstate, 'ses_p', pbuf, { coalesce_ms = 16 })
local function highlighted()
  return vim.api.nvim_win_call(pwin, function()
    return vim.fn.synIDattr(vim.fn.synID(1, 1, 1), 'name') ~= ''
  end)
end
local function emit(kind, properties)
  pstate:apply({ type = kind, properties = properties })
end
emit('message.updated', { info = { id = 'msg_1', sessionID = 'ses_p', role = 'assistant' } })
emit('message.part.updated', { part = { id = 'prt_1', messageID = 'msg_1', sessionID = 'ses_p', type = 'text', text = '' } })
emit('session.status', { sessionID = 'ses_p', status = { type = 'busy' } })
local function stream(text)
  emit('message.part.delta', { sessionID = 'ses_p', messageID = 'msg_1', partID = 'prt_1', field = 'text', delta = text })
end
stream('words ')
pview:flush()
vim.cmd('redraw')
T.ok(pview.pacer.last_draw_ms > 0 and pview.pacer.last_write_ms > 0, 'the write and its draw were timed')
T.ok(highlighted(), 'markdown highlighting of the header')
pview.pacer:wrote(1)
pview.pacer:drew(2)
T.eq(16, pview.pacer:interval(16), 'cheap writes: every coalesce_ms')
-- A draw as slow as a 100 KB one-line answer's (~20 ms on a quiet machine).
pview.pacer:drew(39)
T.eq(160, pview.pacer:interval(16), 'slow ones: 4 times (write + draw) apart')
pview.pacer:drew(1000)
T.eq(pacing.MAX_INTERVAL_MS, pview.pacer:interval(16), 'but at most MAX_INTERVAL_MS apart')
T.wait(function()
  return not highlighted()
end, 'the highlighting to pause', 2000)
T.eq('markdown', vim.bo[pbuf].syntax, "the buffer's syntax stays")
stream('and more')
pview:flush()
-- The turn ends while the user types: the highlighting (whose first draw is slow) waits for a pause.
vim.api.nvim_feedkeys('0', 'tx', false)
emit('session.idle', { sessionID = 'ses_p' })
T.ok(not highlighted(), 'the highlighting still paused while the user types')
T.wait(highlighted, 'the highlighting back once the turn ended and the user paused', 5000)
T.eq(pwin, vim.api.nvim_get_current_win(), 'the same window')
T.eq(pbuf, vim.api.nvim_win_get_buf(pwin), 'showing the transcript')
T.eq("v:lua.require'agentls.chat.render'.foldexpr(v:lnum)", vim.wo[pwin].foldexpr, 'its options kept')
T.eq('## Agent\n\nwords and more\n', T.text(pbuf), 'the text')

-- With tree-sitter highlighting (the user's choice for markdown): stopped while slow, started again.
vim.treesitter.start(pbuf, 'markdown')
emit('session.status', { sessionID = 'ses_p', status = { type = 'busy' } })
stream(' again')
pview:flush()
T.ok(vim.treesitter.highlighter.active[pbuf], 'tree-sitter highlighting')
pview.pacer:drew(40)
T.wait(function()
  return not vim.treesitter.highlighter.active[pbuf]
end, 'tree-sitter highlighting to pause', 2000)
emit('session.idle', { sessionID = 'ses_p' })
T.wait(function()
  return vim.treesitter.highlighter.active[pbuf]
end, 'tree-sitter highlighting back', 5000)
pview:destroy()
-- A long transcript (opening a long chat): its newest lines are written at once, the older ones
-- above them a chunk of lines per turn of the loop; the text and folds end up as if written whole.
do
  local lstate = State.new()
  local messages = {}
  for i = 1, 60 do
    local mid = ('msg_l%03d'):format(i)
    local output = {}
    for n = 1, 10 do
      table.insert(output, ('out %d.%d'):format(i, n))
    end
    table.insert(messages, {
      info = { id = mid, sessionID = 'ses_l', role = 'assistant', agent = 'build' },
      parts = { { id = 'prt_' .. mid, messageID = mid, sessionID = 'ses_l', type = 'tool', tool = 'bash',
        callID = 'call_' .. mid, state = { status = 'completed', input = { command = 'echo ' .. i },
        output = table.concat(output, '\n'), title = 'echo ' .. i } } },
    })
  end
  lstate:load('ses_l', messages)
  -- Written whole, for comparison.
  local first_lines, chunk_lines = rebuild.FIRST_LINES, rebuild.CHUNK_LINES
  local function written_whole()
    local first = rebuild.FIRST_LINES
    rebuild.FIRST_LINES = math.huge
    local wbuf = scratch()
    local wview = render.new(lstate, 'ses_l', wbuf, {})
    rebuild.FIRST_LINES = first
    wview:destroy()
    return T.text(wbuf)
  end
  local whole = written_whole()
  rebuild.FIRST_LINES, rebuild.CHUNK_LINES = 100, 100
  local lbuf = scratch()
  local writes = {} -- lines put in the buffer by each write
  vim.api.nvim_buf_attach(lbuf, false, { on_lines = function(_, _, _, first, last_old, last_new)
    table.insert(writes, last_new - first)
  end })
  vim.cmd('tabnew')
  vim.api.nvim_win_set_buf(0, lbuf)
  chat.style_transcript(0)
  local lview = render.new(lstate, 'ses_l', lbuf, {})
  local shown = T.text(lbuf)
  T.ok(#T.lines(lbuf) >= 100 and #T.lines(lbuf) < 130, 'the newest lines at once: ' .. #T.lines(lbuf))
  T.ok(shown:find('echo 60', 1, true) and not shown:find('echo 1\n', 1, true), 'the newest messages first')
  T.ok(vim.endswith(whole, shown), 'the end of the transcript')
  -- A new answer streams in while the older lines are still to come.
  local function emit(kind, properties)
    lstate:apply({ type = kind, properties = properties })
  end
  emit('message.updated', { info = { id = 'msg_l061', sessionID = 'ses_l', role = 'assistant', agent = 'build' } })
  emit('message.part.updated', { part = { id = 'prt_l061', messageID = 'msg_l061', sessionID = 'ses_l', type = 'text', text = 'new' } })
  emit('message.part.delta', { sessionID = 'ses_l', messageID = 'msg_l061', partID = 'prt_l061', field = 'text', delta = ' words' })
  lview:flush()
  T.ok(lview.from ~= nil, 'older lines still to come')
  T.wait(function()
    return lview.from == nil
  end, 'the older lines')
  rebuild.FIRST_LINES, rebuild.CHUNK_LINES = first_lines, chunk_lines
  whole = written_whole()
  T.ok(whole:find('new words', 1, true), 'the new answer: ' .. whole:sub(-200))
  T.eq(whole, T.text(lbuf), 'the same text as written whole')
  T.ok(#writes >= 6, 'written in chunks: ' .. vim.inspect(writes))
  for _, n in ipairs(writes) do
    T.ok(n <= 100 + 15, 'a chunk of about 100 lines: ' .. vim.inspect(writes))
  end
  T.eq(#T.lines(lbuf), vim.api.nvim_win_get_cursor(0)[1] + 1, 'the cursor still follows the end')
  local lines = T.lines(lbuf)
  for _, i in ipairs({ 1, 30, 60 }) do
    local row = vim.fn.index(lines, ('    out %d.1'):format(i)) + 1
    T.ok(row > 0 and vim.fn.foldclosed(row) > 0, ('message %d: its output folded'):format(i))
    T.eq(-1, vim.fn.foldclosed(row - 1), ('message %d: its tool line visible'):format(i))
    local tool = vim.api.nvim_buf_get_extmarks(lbuf, render.ns, { row - 2, 0 }, { row - 2, -1 }, {})
    T.eq(1, #tool, ('message %d: its tool line marked'):format(i))
  end
  lview:destroy()
  vim.cmd('tabclose')
end
-- A transcript whose newest block alone is long (a long answer): written whole, and its folds come
-- a turn of the loop later.
do
  local lstate = State.new()
  local text, reasoning = {}, {}
  for n = 1, rebuild.FOLD_LATER_LINES do
    table.insert(text, 'line ' .. n)
    table.insert(reasoning, 'thought ' .. n)
  end
  lstate:load('ses_t', { {
    info = { id = 'msg_t1', sessionID = 'ses_t', role = 'assistant', agent = 'build' },
    parts = {
      { id = 'prt_1', messageID = 'msg_t1', sessionID = 'ses_t', type = 'reasoning', text = table.concat(reasoning, '\n') },
      { id = 'prt_2', messageID = 'msg_t1', sessionID = 'ses_t', type = 'text', text = table.concat(text, '\n') },
    },
  } })
  local lbuf = scratch()
  vim.cmd('tabnew')
  vim.api.nvim_win_set_buf(0, lbuf)
  chat.style_transcript(0)
  local lview = render.new(lstate, 'ses_t', lbuf, {})
  T.ok(#T.lines(lbuf) >= rebuild.FOLD_LATER_LINES, 'a long transcript: ' .. #T.lines(lbuf) .. ' lines')
  T.eq('manual', vim.wo.foldmethod, 'no folds computed during the write')
  T.wait(function()
    return vim.wo.foldmethod == 'expr' and lview.from == nil
  end, 'the folds by expression again, and the older lines')
  local row = vim.fn.index(T.lines(lbuf), 'thought 1') + 1
  T.ok(row > 0 and vim.fn.foldclosed(row) > 0, 'the reasoning folded')
  lview:destroy()
  vim.cmd('tabclose')
end

-- A change to one message (a tool's state, a new part, a token count) is drawn looking at that
-- message only, not at the whole transcript (issue 29: thousands of blocks walked for every event
-- of a long chat), and the buffer is the same as drawn from scratch after each change, including the
-- changes that still need the whole list (a part removed, a revert marker).
do
  local mstate = State.new()
  local sid = 'ses_m'
  mstate.sessions[sid] = { id = sid, title = 'many' }
  local function emit(kind, properties)
    mstate:apply({ type = kind, properties = properties })
  end
  local function mid(i)
    return ('msg_%04d'):format(i)
  end
  local function message(i, extra)
    emit('message.updated', { info = vim.tbl_extend('force', { id = mid(i), sessionID = sid,
      role = i % 2 == 1 and 'user' or 'assistant', agent = 'build', providerID = 'fake', modelID = 'm',
      time = { created = i } }, extra or {}) })
  end
  local function part(i, id, fields)
    emit('message.part.updated', { part = vim.tbl_extend('force', { id = id, messageID = mid(i), sessionID = sid },
      fields) })
  end
  local function tool(i, id, status, output)
    part(i, id, { type = 'tool', tool = 'bash', callID = id, state = { status = status,
      input = { command = 'echo ' .. id }, output = output, title = 'echo ' .. id } })
  end
  for i = 1, 60 do
    message(i)
    part(i, 'prt_' .. i .. 'a', { type = 'text', text = 'message ' .. i })
    if i % 2 == 0 then
      tool(i, 'prt_' .. i .. 'b', 'completed', 'out ' .. i)
    end
  end
  local mbuf = scratch()
  local mview = render.new(mstate, sid, mbuf, { coalesce_ms = 1e6 })
  T.wait(function()
    return mview.from == nil
  end, 'the whole transcript')
  local walks = 0
  local wanted = mview.wanted
  mview.wanted = function(...)
    walks = walks + 1
    return wanted(...)
  end
  local function same(what, expect_walks)
    mview:flush()
    local scratch_state = State.new()
    scratch_state.sessions[sid] = mstate.sessions[sid]
    local messages = {}
    for _, id in ipairs(mstate.transcripts[sid].order) do
      local m = mstate.transcripts[sid].messages[id]
      table.insert(messages, { info = m.info, parts = m.parts })
    end
    scratch_state:load(sid, messages)
    local sbuf = scratch()
    local sview = render.new(scratch_state, sid, sbuf, {})
    T.wait(function()
      return sview.from == nil
    end, 'the scratch transcript')
    T.eq(T.text(sbuf), T.text(mbuf), what .. ': the same buffer as drawn from scratch')
    sview:destroy()
    T.eq(expect_walks, walks, what .. ': walks over the whole transcript')
    walks = 0
  end
  tool(60, 'prt_60b', 'running', nil)
  same('the newest tool running again', 0)
  tool(60, 'prt_60b', 'completed', 'out 60\nmore')
  same('the newest tool done, a longer output', 0)
  tool(30, 'prt_30b', 'error', 'it failed')
  same('a tool in the middle of the transcript', 0)
  message(60, { time = { created = 60, completed = 61 }, tokens = { input = 5, output = 7 } })
  same('the newest message updated', 0)
  message(59, { modelID = 'm2' })
  same('a prompt in the middle, updated', 0)
  part(60, 'prt_60c', { type = 'text', text = 'a new part after the tool' })
  same('a new part at the end of the newest message', 0)
  part(40, 'prt_40a0', { type = 'text', text = 'a new part between two others' })
  same('a new part in the middle of a message', 0)
  message(61)
  same('a new message', 1)
  part(61, 'prt_61a', { type = 'text', text = 'its first part' })
  same("the new message's first part", 0)
  emit('message.part.removed', { sessionID = sid, messageID = mid(40), partID = 'prt_40a0' })
  same('a part removed', 1)
  emit('session.updated', { info = vim.tbl_extend('force', mstate.sessions[sid], { revert = { messageID = mid(59) } }) })
  same('a revert marker', 1)
  tool(60, 'prt_60b', 'completed', 'after the revert')
  same('a tool under the revert marker', 0)
  mview:destroy()
end
-- A hook's run: one line saying how it ended; a failed one shows its output, folded under it.
do
  local parts = require('agentls.chat.parts')
  local base = { id = 'prt_h', sessionID = 's', messageID = 'm', type = 'hook', event = 'PreToolUse', command = './no-rm.sh', source = 'agentls config', durationMs = 12 }
  local ok = parts.part(vim.tbl_extend('force', base, { exitCode = 0, timedOut = false, output = '' }))
  T.eq({ '⚓ hook PreToolUse: ./no-rm.sh — exit 0, 12 ms' }, ok.lines, 'a hook that passed')
  local denied = parts.part(vim.tbl_extend('force', base, { exitCode = 2, timedOut = false, output = 'rm is blocked', effect = 'denied' }))
  T.eq({ '⚓ hook PreToolUse: ./no-rm.sh — exit 2, 12 ms · denied', '    rm is blocked' }, denied.lines, 'a hook that denied')
  T.eq({ 1 }, denied.fold, 'its output folds')
  local hung = parts.part(vim.tbl_extend('force', base, { timedOut = true, output = '' }))
  T.eq({ '⚓ hook PreToolUse: ./no-rm.sh — timed out, 12 ms' }, hung.lines, 'a hook stopped at its timeout')
end
T.no_errors()
