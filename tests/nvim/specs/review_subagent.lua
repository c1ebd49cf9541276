-- A background sub-agent's change in the review of the session that started it: its sign, the
-- label at the end of its line, the quickfix entry saying whose it is, and undo under the cursor.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local signs = require('agentls.review.signs')

vim.cmd('edit calc.py')
local calc = vim.api.nvim_get_current_buf()
local calc_win = vim.api.nvim_get_current_win()
local session = T.open()

T.send('fix add in the background')
T.wait(function()
  return #signs.in_buffer(calc) == 1
end, "the sign of the sub-agent's change", 30000)
T.wait(function()
  return T.text(T.transcript()):find('Noted.', 1, true) ~= nil
end, "the parent's turn for the report", 30000)
T.idle(session)
local mark = vim.api.nvim_buf_get_extmarks(calc, signs.ns, 0, -1, { details = true })[1]
T.eq(1, mark[2], 'the sign on the changed line')
T.eq({ { 'by @general: fix the sign', 'Comment' } }, mark[4].virt_text, 'the label of the change')

vim.cmd('AgentlsReview list')
T.wait(function()
  return #vim.fn.getqflist() == 1
end, 'the quickfix list')
local item = vim.fn.getqflist()[1]
T.ok(item.text:find('(by @general: fix the sign)', 1, true), 'whose change in ' .. item.text)
vim.cmd('cclose')

vim.api.nvim_set_current_win(calc_win)
vim.api.nvim_win_set_cursor(calc_win, { 2, 0 })
vim.api.nvim_feedkeys(vim.keycode('<localleader>u'), 'xt', false)
T.wait(function()
  return T.lines(calc)[2] == '    return a - b'
end, "the sub-agent's change undone from the parent")
T.wait(function()
  return #signs.in_buffer(calc) == 0
end, 'the undone change to lose its sign')
T.eq(T.lines(calc), vim.fn.readfile('calc.py'), 'saved with the undo')
T.finish()
