-- :AgentlsComment: comments on an agent change (the line under the cursor takes the whole hunk) and
-- on a range, shown under their lines; a batch the server refuses comes back whole; submit sends
-- the batch to the agent as one prompt.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local comments = require('agentls.review.comments')
local signs = require('agentls.review.signs')

vim.cmd('edit calc.py')
local calc = vim.api.nvim_get_current_buf()
local calc_win = vim.api.nvim_get_current_win()
local session = T.open()
T.send('fix add')
T.idle(session)
T.wait(function()
  return #signs.in_buffer(calc) == 1
end, 'the change to review')

-- A batch the server refuses (a file outside the project): nothing is lost.
vim.cmd('split ' .. vim.fn.fnameescape(vim.fn.tempname() .. '.py'))
vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'x = 1' })
vim.cmd('AgentlsComment not in the project')
local errors = T.notifications(T.at(vim.log.levels.ERROR))
vim.cmd('AgentlsComment submit')
T.wait(function()
  return #errors == 1
end, 'the refusal')
T.eq(1, #comments.batch, 'the comment came back')
T.ok(errors[1].msg:find('kept', 1, true), errors[1].msg)
vim.cmd('AgentlsComment clear')
T.eq({}, comments.batch, 'cleared')
vim.cmd('close!')

-- On the agent's change (cursor on it), and on a range.
vim.api.nvim_set_current_win(calc_win)
vim.api.nvim_win_set_cursor(calc_win, { 2, 0 })
vim.cmd('AgentlsComment Also handle floats.')
vim.cmd('4,5AgentlsComment Rename this')
local pending = comments.comments()
T.eq(2, #pending, 'two comments')
T.eq({ 2, 2 }, { pending[1].startLine, pending[1].endLine }, 'the hunk')
T.ok(pending[1].hunkID, 'about the agent change')
T.eq({ 4, 5, nil }, { pending[2].startLine, pending[2].endLine, pending[2].hunkID }, 'the range')
local virt = vim.api.nvim_buf_get_extmarks(calc, comments.ns, 0, -1, { details = true })
T.eq('  ✎ Also handle floats.', virt[1][4].virt_lines[1][1][1], 'shown under the line')
vim.cmd('AgentlsComment submit')
T.eq({}, comments.batch, 'sent')
T.wait(function()
  return T.text(T.transcript()):find('Thanks for the review', 1, true)
end, 'the answer to the review')
T.idle(session)
T.finish()
