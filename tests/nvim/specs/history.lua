-- The chat renders the last `last_messages` messages; `gL` on the transcript loads the page before
-- them (the cursor stays on its message). :AgentlsExport writes the whole session as Markdown.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup({ last_messages = 4 })

local session = T.open()
for i = 1, 3 do
  T.send('question ' .. i)
  T.idle(session)
end
T.ok(T.text(T.transcript()):find('answer one', 1, true), 'every message live')

-- Loaded again (as after a restart, or another Neovim): the last 4 messages and the offer.
local chat = T.chat()
chat.load(session)
T.wait(function()
  return T.lines(T.transcript())[1]:find('older messages', 1, true)
end, 'the offer of older messages: ' .. T.text(T.transcript()))
local text = T.text(T.transcript())
T.eq('▲ older messages: gL loads 4 more', T.lines(T.transcript())[1], 'the first line')
T.ok(not text:find('question 1', 1, true) and not text:find('answer one', 1, true), 'the first turn left out:\n' .. text)
T.ok(text:find('question 2', 1, true) and text:find('answer three', 1, true), 'the last 4 shown:\n' .. text)

-- gL, with the cursor on the second question: it stays there.
vim.api.nvim_set_current_win(chat.win)
local row
for i, line in ipairs(T.lines(T.transcript())) do
  if line:find('question 2', 1, true) then
    row = i
  end
end
vim.api.nvim_win_set_cursor(chat.win, { row, 0 })
require('agentls.chat.rebuild').CHUNK_LINES = 4 -- older lines come in chunks: a few turns of the loop
vim.api.nvim_feedkeys('gL', 'xt', false)
T.wait(function()
  return T.text(T.transcript()):find('answer one', 1, true)
end, 'the older messages')
T.ok(not T.text(T.transcript()):find('older messages', 1, true), 'no older message left to offer')
T.ok(vim.api.nvim_get_current_line():find('question 2', 1, true), 'the cursor stayed: ' .. vim.api.nvim_get_current_line())

-- Export: refused over an existing file without !, written with it.
local said = T.notifications()
vim.fn.writefile({ 'mine' }, 'out.md')
pcall(vim.cmd, 'AgentlsExport out.md') -- an error message (raised here: a script's :echoerr)
T.eq({ 'mine' }, vim.fn.readfile('out.md'), 'not overwritten')
T.ok(said[1] and said[1].msg:find('AgentlsExport!', 1, true), 'said how: ' .. vim.inspect(said))
vim.cmd('AgentlsExport! out.md')
T.wait(function()
  return vim.fn.readfile('out.md')[1] ~= 'mine'
end, 'the export')
local md = table.concat(vim.fn.readfile('out.md'), '\n')
T.ok(md:find('## User', 1, true) and md:find('question 1', 1, true) and md:find('answer three', 1, true), md)
-- Without a path: a Markdown buffer with the same text.
vim.cmd('AgentlsExport')
T.wait(function()
  return vim.bo.filetype == 'markdown' and vim.api.nvim_buf_get_name(0):find('export', 1, true)
end, 'the export buffer')
T.eq(vim.fn.readfile('out.md'), T.lines(0), 'the same text')

-- Every message (`last_messages` = 0): still asked a page at a time (a whole long session's answer
-- is decoded in one go), the older pages following by themselves, newest first.
local history = require('agentls.chat.history')
require('agentls.config').options.last_messages = 0
history.PAGE = 2
local pages = {}
local unsubscribe = require('agentls').state:subscribe(function(kind, sid)
  if sid == session and (kind == 'reset' or kind == 'older') then
    table.insert(pages, #require('agentls').state.transcripts[session].order)
  end
end)
chat.load(session)
T.wait(function()
  return #pages > 0 and not history.older[session] and not history.loading[session]
    and require('agentls.chat.render').views[T.transcript()].from == nil
end, 'every message: ' .. T.text(T.transcript()))
unsubscribe()
T.eq({ 2, 4, 6, 6 }, pages, 'a page of 2 at a time (the last, empty, says there are no more)')
text = T.text(T.transcript())
T.ok(not text:find('older messages', 1, true), 'no offer left:\n' .. text)
T.ok(text:find('question 1', 1, true) < text:find('answer one', 1, true)
  and text:find('answer one', 1, true) < text:find('question 3', 1, true), 'in order:\n' .. text)
T.finish()
