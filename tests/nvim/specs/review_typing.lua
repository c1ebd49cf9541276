-- Undo with the user's keys right behind it: <localleader>u, then at once a line typed at the end
-- of the file (before the server's edit arrives, so Neovim holds a newer buffer than the one the
-- undo was computed from). The typing does not touch the agent's hunk: the undo must succeed, with
-- both the undone line and the typed one in the buffer, and no conflict shown.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local signs = require('agentls.review.signs')

vim.cmd('edit calc.py')
local calc = vim.api.nvim_get_current_buf()
local calc_win = vim.api.nvim_get_current_win()
local session = T.open()

local asked = {}
vim.ui.select = function(items, opts, on_choice)
  table.insert(asked, opts.prompt)
  on_choice(nil)
end

T.send('fix add')
T.idle(session)
T.wait(function()
  return #signs.in_buffer(calc) == 1
end, 'the sign of the change')
vim.api.nvim_set_current_win(calc_win)
-- The user's own unsaved line: the undo then reaches the buffer through workspace/applyEdit.
vim.api.nvim_feedkeys(vim.keycode('Go# typed before<Esc>'), 'xt', false)
vim.api.nvim_win_set_cursor(calc_win, { 2, 0 })
-- The undo, and the user typing right after it, in one go (no event is handled in between).
vim.api.nvim_feedkeys(vim.keycode('<localleader>uGo# typed right after<Esc>'), 'xt', false)
T.wait(function()
  return T.lines(calc)[2] == '    return a - b' or #asked > 0
end, 'the undo')
T.eq({}, asked, 'no conflict shown')
T.eq({
  'def add(a, b):', '    return a - b', '', '', 'def mul(a, b):', '    return a * b', '# typed before',
  '# typed right after',
}, T.lines(calc), 'the undone line and both typed lines')
T.wait(function()
  return #signs.in_buffer(calc) == 0
end, 'the undone change to lose its sign')
T.finish()
