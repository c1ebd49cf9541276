-- A stock Neovim 0.11 user reviews the agent's changes: no plugin, only vim.lsp and the server's
-- commands and code actions. Run by tests/stock/test_neovim_review.py. vim.ui.select (where stock
-- Neovim shows the code action menu and dialogs) picks by title from a queue; results go to JSON.
local user = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/nvim_user.lua')
local spec, out, save, fail = user.spec, user.out, user.save, user.fail
local lines, disk = user.lines, user.disk
out.dialogs, out.menus = {}, {}
user.pick_by_title(out.menus, user.action_title, true)
-- The stand-in answers the moment it is asked; the server's guard against typed-ahead answers
-- (which would ask again) is for a person, tested in test_neovim_interactive.py.
user.start({ dialogMinRead = 0 })

local function scenario()
  vim.cmd.edit(spec.hello)
  local buf = vim.api.nvim_get_current_buf()
  local client = user.attached(buf)
  if not client then
    return
  end

  local command = user.commands(client, buf)

  local function messages()
    return vim.api.nvim_exec2('messages', { output = true }).output
  end

  -- 1. Auto: the agent's two edits land without a dialog.
  out.mode = command('agentls.mode', { 'auto' })
  out.prompt = command('agentls.prompt', { 'change it' }, 60000)
  vim.cmd('checktime')
  out.after_prompt = { disk = disk(spec.hello), buffer = lines(buf) }
  out.review = command('agentls.review', {}) -- opens the review as a diff document
  out.review_doc = vim.api.nvim_buf_get_name(0)
  vim.cmd.buffer(buf)

  -- 2. On line 2, the code action menu (the user's own :lua vim.lsp.buf.code_action()) undoes it.
  vim.api.nvim_win_set_cursor(0, { 2, 4 })
  vim.lsp.buf.code_action()
  if not vim.wait(10000, function()
    return disk(spec.hello):find("'hello'", 1, true) ~= nil or lines(buf):find("'hello'", 1, true) ~= nil
  end, 20) then
    return fail('the undo never reached the file: ' .. lines(buf))
  end

  -- 3. On line 5, keep it.
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  vim.lsp.buf.code_action()
  vim.wait(10000, function()
    return #command('agentls.review', { { show = false } }) == 0
  end, 50)
  out.review_after = command('agentls.review', {})
  vim.cmd('checktime') -- an unmodified buffer's file is written on disk; Neovim reloads it
  out.final = { disk = disk(spec.hello), buffer = lines(buf), modified = vim.bo[buf].modified }
  local _, err = command('agentls.mode', { 'yolo' })
  out.bad_mode = err or vim.NIL
  command('agentls.mode', {})
  out.messages = messages()
end

local ok, problem = pcall(scenario)
if not ok then
  return fail(tostring(problem))
end
save()
vim.cmd('qa!')
