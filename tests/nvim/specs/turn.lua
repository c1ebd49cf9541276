-- A full turn: streamed text in the chat, the tool line changing state in place, the permission
-- answered through vim.ui.select after its diff was shown, the edit in the buffer and on disk,
-- one :undo reverts it, no W12.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

vim.cmd('edit hello.py')
local hello = vim.api.nvim_get_current_buf()
local render = require('agentls.chat.render')

local asked = {}
vim.ui.select = function(items, opts, on_choice)
  local tab = vim.api.nvim_get_current_tabpage()
  local wins = vim.api.nvim_tabpage_list_wins(tab)
  local seen = { prompt = opts.prompt, items = items, preview = vim.t[tab].agentls_preview, diff = {} }
  for _, win in ipairs(wins) do
    table.insert(seen.diff, { diff = vim.wo[win].diff, text = T.text(vim.api.nvim_win_get_buf(win)) })
  end
  -- The tool line of the edit, while it waits for the answer.
  local buf = T.transcript()
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, render.ns, 0, -1, { details = true })) do
    seen.tool = { id = mark[1], row = mark[2], state = mark[4].virt_text[1][1],
      line = vim.api.nvim_buf_get_lines(buf, mark[2], mark[2] + 1, false)[1] }
  end
  table.insert(asked, seen)
  vim.schedule(function()
    on_choice('Allow once', 1)
  end)
end

local session = T.open()
T.eq('agentls://' .. session, vim.api.nvim_buf_get_name(T.transcript()), 'transcript name')
T.wait(function() -- (a turn of the loop later: agentls.chat's markdown)
  return vim.bo[T.transcript()].filetype == 'markdown' and vim.b[T.transcript()].current_syntax == 'markdown'
end, 'the transcript markdown')

T.send('say bye instead')
T.wait(function()
  return T.text(T.transcript()):find('I will fix the greeting.', 1, true)
end, 'the streamed text')
T.idle(session)

-- The permission: asked once, with the diff of the proposed edit on screen.
T.eq(1, #asked, 'permission dialogs')
local seen = asked[1]
T.ok(seen.prompt:find('edit', 1, true), 'an edit permission prompt, got ' .. seen.prompt)
T.eq(vim.fn.getcwd() .. '/hello.py', seen.preview, 'previewed file')
T.eq(2, #seen.diff, 'diff windows')
T.eq({ true, true }, { seen.diff[1].diff, seen.diff[2].diff }, 'diff mode')
T.eq("print('hello')", seen.diff[1].text, 'current side')
T.eq("print('bye')", seen.diff[2].text, 'proposed side')
T.eq(1, #vim.api.nvim_list_tabpages(), 'the preview tab closed')

-- The tool line: the same extmark, running while asked, done now.
T.eq('⟳ running', seen.tool.state, 'tool state while asking')
local mark = vim.api.nvim_buf_get_extmark_by_id(T.transcript(), render.ns, seen.tool.id, { details = true })
T.eq('✓ done', mark[3].virt_text[1][1], 'tool state after the turn')
T.ok(seen.tool.line:find('⚙ edit', 1, true), 'a tool line, got ' .. seen.tool.line)
T.eq(seen.tool.line, vim.api.nvim_buf_get_lines(T.transcript(), mark[1], mark[1] + 1, false)[1], 'tool line')

local transcript = T.text(T.transcript())
T.ok(transcript:find('## You\n\nsay bye instead', 1, true), 'the prompt in the transcript:\n' .. transcript)
T.ok(transcript:find('Done: it says bye now.', 1, true), 'the final answer:\n' .. transcript)
T.ok(transcript:find('▸ Thinking\nLet me look at hello.py', 1, true), 'the reasoning:\n' .. transcript)

-- The edit: in the buffer, saved (buffer = disk, not modified), one undo step.
T.eq({ "print('bye')" }, T.lines(hello), 'edited buffer')
T.eq(false, vim.bo[hello].modified, 'buffer saved')
T.eq({ "print('bye')" }, vim.fn.readfile('hello.py'), 'disk')
vim.cmd('checktime') -- the disk holds what the buffer holds: nothing to reload, no W12
vim.api.nvim_set_current_buf(hello)
vim.cmd('undo')
T.eq({ "print('hello')" }, T.lines(hello), 'after one undo')

T.finish()
