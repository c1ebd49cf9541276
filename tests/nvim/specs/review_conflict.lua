-- An undo over lines the user changed since: nothing is overwritten; both sides show side by side
-- and the user picks (here: keep theirs for one change, put the old lines back for the other).
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local signs = require('agentls.review.signs')

vim.cmd('edit calc.py')
local calc = vim.api.nvim_get_current_buf()
local calc_win = vim.api.nvim_get_current_win()
local session = T.open()
T.send('fix both')
T.idle(session)
T.wait(function()
  return #signs.in_buffer(calc) == 2
end, 'the signs of both changes')

-- The user edits both of the agent's lines (real keys, not saved).
vim.api.nvim_set_current_win(calc_win)
vim.api.nvim_feedkeys(vim.keycode('2GA  # mine<Esc>6GA  # mine too<Esc>'), 'xt', false)
local mine = vim.deepcopy(T.lines(calc))
T.eq('    return a + b  # mine', mine[2], 'typed')

local asked = {}
local picks = {
  "Keep yours (the agent's change counts as reviewed)",
  "Put back the lines from before the agent's change (replaces yours; u undoes it)",
}
vim.ui.select = function(items, opts, on_choice)
  -- What is on screen while the user picks: the agent's lines next to theirs.
  local sides = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    T.eq(true, vim.wo[win].diff, 'both sides in diff mode')
    table.insert(sides, T.lines(vim.api.nvim_win_get_buf(win)))
  end
  table.insert(asked, { prompt = opts.prompt, sides = sides })
  local pick = picks[#asked]
  T.ok(vim.tbl_contains(items, pick), pick .. ' among ' .. vim.inspect(items))
  vim.schedule(function()
    on_choice(pick)
  end)
end

vim.cmd('AgentlsReview undo')
T.wait(function()
  return #asked == 2 and #signs.in_buffer(calc) == 0
end, 'both conflicts answered')
-- Newest first: mul, then add.
T.eq({ { '    return a ** b' }, { '    return a ** b  # mine too' } }, asked[1].sides, 'the mul sides')
T.eq({ { '    return a + b' }, { '    return a + b  # mine' } }, asked[2].sides, 'the add sides')
T.ok(asked[1].prompt:find('calc.py', 1, true), 'the file in ' .. asked[1].prompt)
-- Keep yours: untouched; put back: the old line, as one change the user can undo.
T.eq('    return a ** b  # mine too', T.lines(calc)[6], 'kept yours')
T.eq('    return a - b', T.lines(calc)[2], 'put back')
T.eq(1, #vim.api.nvim_list_tabpages(), 'the side-by-side tabs closed')
vim.api.nvim_set_current_win(calc_win)
vim.cmd('undo')
T.eq(mine, T.lines(calc), 'u brings the typed line back')
T.finish()
