-- A stock Neovim 0.11 user (no plugin, only vim.lsp) with next edits on: the user renames the
-- argument at one call of scale(); at the other call Neovim's code action menu (vim.ui.select,
-- picking by title from a queue) offers "Apply the agent's pattern here", which edits the line in
-- one undo step. Run by tests/stock/test_neovim_next_edits.py; results go to JSON.
local user = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/nvim_user.lua')
local spec, out, save, fail = user.spec, user.out, user.save, user.fail
out.menus = {}
user.pick_by_title(out.menus, user.action_title)
user.start({ nextEdits = true })

local function pattern_actions(client, buf, line)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = line, character = 0 }, ['end'] = { line = line, character = 0 } },
    context = { diagnostics = {} },
  }
  local response = client:request_sync('textDocument/codeAction', params, 5000, buf)
  local titles = {}
  for _, action in ipairs(response and response.result or {}) do
    if action.title:find("Apply the agent's pattern here", 1, true) then
      table.insert(titles, action.title)
    end
  end
  return titles
end

local function scenario()
  vim.cmd.edit(spec.file)
  local buf = vim.api.nvim_get_current_buf()
  local client = user.attached(buf)
  if not client then
    return
  end
  out.inline_capability = client.server_capabilities.inlineCompletionProvider ~= nil

  -- The user renames the keyword argument at the first call.
  vim.api.nvim_buf_set_lines(buf, 2, 3, false, { 'print(scale(amount=2, factor=3))' })
  -- A script's changes share one undo block; a user's typing ends its own (:h undo-break).
  vim.cmd('let &undolevels = &undolevels')
  local titles
  if not vim.wait(30000, function()
    titles = pattern_actions(client, buf, 3)
    return #titles > 0
  end, 100) then
    return fail('no next edit was offered on line 4')
  end
  out.offered = titles
  out.elsewhere = pattern_actions(client, buf, 0)

  vim.api.nvim_win_set_cursor(0, { 4, 0 })
  vim.lsp.buf.code_action()
  if not vim.wait(10000, function()
    return vim.api.nvim_buf_get_lines(buf, 3, 4, false)[1] ~= 'total = scale(value=4, factor=5)'
  end, 20) then
    return fail('the code action changed nothing: ' .. vim.inspect(vim.api.nvim_buf_get_lines(buf, 0, -1, false)))
  end
  out.applied = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  vim.cmd('silent undo')
  out.undone = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

local ok, problem = pcall(scenario)
if not ok then
  return fail(tostring(problem))
end
save()
vim.cmd('qa!')
