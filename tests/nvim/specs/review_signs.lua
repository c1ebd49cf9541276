-- Review in Neovim: signs on the agent's pending changes, ]h / [h, keep and undo under the cursor,
-- the quickfix list and :AgentlsReview. The user types between the agent's edits (real keys): an
-- undo puts back only the agent's lines, and the typed text stays (the buffer is never reloaded).
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local signs = require('agentls.review.signs')

vim.cmd('edit calc.py')
local calc = vim.api.nvim_get_current_buf()
local calc_win = vim.api.nvim_get_current_win()
local session = T.open()

local function rows()
  return vim.tbl_map(function(item)
    return item.first
  end, signs.in_buffer(calc))
end

local function type_keys(keys)
  vim.api.nvim_set_current_win(calc_win)
  vim.api.nvim_feedkeys(vim.keycode(keys), 'xt', false)
end

T.send('fix add')
T.idle(session)
T.wait(function()
  return #rows() == 1
end, 'the sign of the first change')
T.eq({ 1 }, rows(), 'the sign on the changed line')
T.eq('~ ', vim.api.nvim_buf_get_extmarks(calc, signs.ns, 0, -1, { details = true })[1][4].sign_text, 'sign')

-- The user types above the agent's change, then the agent changes another line.
type_keys('ggO# typed between the edits<Esc>')
T.eq({ 2 }, rows(), 'the sign followed the typing')
T.send('fix mul')
T.idle(session)
T.wait(function()
  return #rows() == 2
end, 'the sign of the second change')
T.eq({ 2, 6 }, rows(), 'both changes signed')
-- More typing, not saved.
type_keys('Go# typed after the edits<Esc>')
T.eq(true, vim.bo[calc].modified, 'the typing is not saved')

-- ]h and [h jump between the changes (wrapping around).
vim.api.nvim_win_set_cursor(calc_win, { 1, 0 })
type_keys(']h')
T.eq(3, vim.api.nvim_win_get_cursor(calc_win)[1], ']h to the first change')
type_keys(']h')
T.eq(7, vim.api.nvim_win_get_cursor(calc_win)[1], ']h to the second change')
type_keys(']h')
T.eq(3, vim.api.nvim_win_get_cursor(calc_win)[1], ']h wraps around')
type_keys('[h')
T.eq(7, vim.api.nvim_win_get_cursor(calc_win)[1], '[h wraps around')
type_keys('[h')
T.eq(3, vim.api.nvim_win_get_cursor(calc_win)[1], '[h back to the first change')

-- Undo the first change (the hunk under the cursor): only the agent's line goes back.
type_keys('<localleader>u')
T.wait(function()
  return T.lines(calc)[3] == '    return a - b'
end, 'the undo in the buffer')
T.eq({
  '# typed between the edits', 'def add(a, b):', '    return a - b', '', '', 'def mul(a, b):',
  '    return a ** b', '# typed after the edits',
}, T.lines(calc), 'the typed lines stay around the undone change')
T.eq(T.lines(calc), vim.fn.readfile('calc.py'), 'saved with the undo, typing included')
T.wait(function()
  return #rows() == 1
end, 'the undone change to lose its sign')
T.eq({ 6 }, rows(), 'the second change keeps its sign')

-- The quickfix list of what is left.
vim.cmd('AgentlsReview list')
T.wait(function()
  return #vim.fn.getqflist() == 1
end, 'the quickfix list')
local item = vim.fn.getqflist()[1]
T.eq(7, item.lnum, 'the quickfix entry on the line the change stands on now')
T.ok(item.text:find('return a ** b', 1, true), 'the change in ' .. item.text)
vim.cmd('cclose')

-- :AgentlsReview: keep all (through vim.ui.select, as a picker plugin would be asked).
local prompts = {}
vim.ui.select = function(items, opts, on_choice)
  table.insert(prompts, opts.prompt)
  for _, choice in ipairs(items) do
    if opts.format_item(choice):match('^Keep all') then
      return vim.schedule(function()
        on_choice(choice)
      end)
    end
  end
  on_choice(nil)
end
vim.api.nvim_set_current_win(calc_win)
vim.cmd('AgentlsReview')
T.wait(function()
  return #rows() == 0
end, 'keep all to take the signs away')
T.eq({ 'agentls review: 1 change in 1 file' }, prompts, 'the menu')
T.eq('    return a ** b', T.lines(calc)[7], 'a kept change stays')
T.eq(nil, vim.fn.maparg(']h', 'n', false, true).buffer, 'the keymaps go with the last change')
T.finish()
