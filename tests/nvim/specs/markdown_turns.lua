-- A chat buffer becomes markdown in turns of the loop of its own (issue 29: no block over 50 ms
-- while a long chat opens): first its filetype (filetype plugins, the user's FileType autocommands),
-- then its syntax, one buffer after the other; the end state is what setting the filetype gives.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local markdown = require('agentls.chat.markdown')

-- Turns of the loop, counted by a timer that starts itself again each time it runs: two pieces of
-- work with the same count ran in the same turn.
local turn, ticking = 0, true
local function tick()
  turn = turn + 1
  if ticking then
    vim.defer_fn(tick, 0)
  end
end
vim.defer_fn(tick, 0)

local seen = {} ---@type {event: string, buf: integer, turn: integer, syntax: string|nil}[]
local group = vim.api.nvim_create_augroup('spec', {})
vim.api.nvim_create_autocmd({ 'FileType', 'Syntax' }, { group = group, pattern = 'markdown', callback = function(a)
  table.insert(seen, { event = a.event, buf = a.buf, turn = turn, syntax = vim.b[a.buf].current_syntax })
end })
local function scratch()
  return vim.api.nvim_create_buf(false, true)
end

vim.o.eventignore = 'FocusGained' -- the user's own: kept
local one, two = scratch(), scratch()
local after = {}
markdown.queue(one, function()
  table.insert(after, { turn = turn, syntax = vim.b[one].current_syntax })
end)
markdown.queue(two)
T.wait(function()
  return vim.b[two].current_syntax == 'markdown'
end, 'the second buffer highlighted')
local function events(buf)
  return vim.tbl_filter(function(e)
    return e.buf == buf
  end, seen)
end
local e1, e2 = events(one), events(two)
T.eq({ 'FileType', 'Syntax' }, vim.tbl_map(function(e)
  return e.event
end, e1), 'the first buffer: its filetype, then its syntax')
T.ok(e1[1].syntax == nil, 'no syntax loaded in the filetype turn')
T.ok(e1[2].turn > e1[1].turn, ('the syntax in a later turn than the filetype: %d, %d'):format(e1[1].turn, e1[2].turn))
T.ok(e2[1].turn > e1[2].turn, 'the second buffer after the first')
T.ok(e2[2].turn > e2[1].turn, "the second buffer's syntax in a turn of its own")
T.eq('markdown', vim.bo[one].filetype, 'the filetype')
T.eq('markdown', vim.bo[one].syntax, 'the syntax option')
T.eq('markdown', vim.b[one].current_syntax, 'the syntax loaded')
T.eq({ { turn = e1[2].turn, syntax = 'markdown' } }, after, '`after` ran once, with the syntax loaded')
T.eq('FocusGained', vim.o.eventignore, "the user's 'eventignore' kept")
-- Highlighted as markdown: a heading.
vim.api.nvim_buf_set_lines(one, 0, -1, false, { '## Agent', '', 'text' })
vim.api.nvim_win_set_buf(0, one)
T.eq('markdownH2', vim.fn.synIDattr(vim.fn.synID(1, 4, 1), 'name'), 'the heading highlighted')

-- A FileType autocommand that starts tree-sitter (the user's choice): no Vim syntax is loaded.
vim.api.nvim_create_autocmd('FileType', { group = group, pattern = 'markdown', callback = function(a)
  if vim.b[a.buf].spec_ts then
    vim.treesitter.start(a.buf, 'markdown')
  end
end })
local three = scratch()
vim.b[three].spec_ts = true
local done3 = false
markdown.queue(three, function()
  done3 = true
end)
T.wait(function()
  return done3
end, 'the third buffer done')
T.ok(vim.treesitter.highlighter.active[three], 'tree-sitter highlighting')
T.eq(nil, vim.b[three].current_syntax, 'no Vim syntax')
T.eq({ 'FileType' }, vim.tbl_map(function(e)
  return e.event
end, events(three)), 'no Syntax event')

-- A FileType autocommand that fails: its error is told, the next buffer still becomes markdown.
vim.api.nvim_create_autocmd('FileType', { group = group, pattern = 'markdown', callback = function(a)
  if vim.b[a.buf].spec_fail then
    error('spec: a broken FileType autocommand')
  end
end })
local four, five = scratch(), scratch()
vim.b[four].spec_fail = true
markdown.queue(four)
markdown.queue(five)
T.wait(function()
  return vim.b[five].current_syntax == 'markdown'
end, 'the buffer after the failing one highlighted')
T.ok(vim.fn.execute('messages'):find('a broken FileType autocommand', 1, true), 'the error told: ' .. vim.fn.execute('messages'))
T.eq('FocusGained', vim.o.eventignore, "'eventignore' restored after the error")
ticking = false
