-- The proposed side of an edit's diff is the user's to change: "Edit the proposal first" leaves the
-- dialog waiting with the cursor in the proposed side; the user types; :AgentlsDialog and Allow
-- send the user's version, which is what lands in the file.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local picks = { 'Edit the proposal first (then :AgentlsDialog)', 'Allow once' }
local asked = {}
vim.ui.select = function(items, opts, on_choice)
  table.insert(asked, { prompt = opts.prompt, items = items })
  local pick = table.remove(picks, 1)
  T.ok(vim.tbl_contains(items, pick), pick .. ' in ' .. vim.inspect(items))
  vim.schedule(function()
    on_choice(pick)
  end)
end

vim.cmd('edit calc.py')
local calc = vim.api.nvim_get_current_buf()
local session = T.open()
T.send('fix add')
T.wait(function()
  return #asked == 1
end, 'the permission dialog')
T.wait(function()
  return vim.api.nvim_buf_get_name(0):find('agentls://proposed/', 1, true)
end, 'the cursor in the proposed side')
T.eq(true, vim.bo.modifiable, 'the proposed side can be edited')
T.ok(vim.wo.winbar:find('yours to edit', 1, true), vim.wo.winbar)
vim.api.nvim_feedkeys(vim.keycode('2GA  # checked<Esc>'), 'xt', false)
T.eq('    return a + b  # checked', vim.api.nvim_buf_get_lines(0, 1, 2, false)[1], 'typed')

vim.cmd('AgentlsDialog')
T.idle(session)
T.eq(2, #asked, 'asked again, once')
T.eq('    return a + b  # checked', T.lines(calc)[2], "the user's version landed")
T.eq(T.lines(calc), vim.fn.readfile('calc.py'), 'saved')
T.eq(1, #vim.api.nvim_list_tabpages(), 'the preview closed')
T.finish()
