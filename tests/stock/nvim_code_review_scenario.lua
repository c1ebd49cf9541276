-- A stock Neovim 0.11 user asks agentls for a code review: no plugin, only vim.lsp. The findings
-- arrive as vim.diagnostic entries; the user's own edit clears one, the code action menu (Neovim's
-- vim.ui.select, picking by title from a queue) dismisses the other. Run by
-- tests/stock/test_neovim_code_review.py; results go to JSON.
local spec = vim.json.decode(table.concat(vim.fn.readfile(vim.env.AGENTLS_SCENARIO), '\n'))
local out = { menus = {} }

local function save()
  vim.fn.writefile({ vim.json.encode(out) }, spec.result)
end

local function fail(message)
  out.error = message
  save()
  vim.cmd('qa!')
end

local picks = vim.deepcopy(spec.picks)
vim.ui.select = function(items, opts, on_choice)
  local titles = {}
  for _, item in ipairs(items) do
    table.insert(titles, item.title or (item.action and item.action.title) or vim.NIL)
  end
  local want = table.remove(picks, 1)
  table.insert(out.menus, { titles = titles, picked = want or vim.NIL })
  for i, title in ipairs(titles) do
    if title == want then
      return on_choice(items[i], i)
    end
  end
  on_choice(nil) -- Escape
end

vim.lsp.config('agentls', {
  cmd = spec.cmd,
  cmd_env = spec.env,
  filetypes = { 'python' },
  root_markers = { 'agentls.json', '.git' },
  init_options = { config = spec.config, dialogMinRead = 0 },
})
vim.lsp.enable('agentls')

local function review_diagnostics(buf)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.source == 'agentls review' then
      table.insert(found, { lnum = d.lnum, severity = d.severity, message = d.message })
    end
  end
  table.sort(found, function(a, b) return a.lnum < b.lnum end)
  return found
end

local function scenario()
  vim.cmd.edit(spec.file)
  local buf = vim.api.nvim_get_current_buf()
  local client
  if not vim.wait(20000, function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'agentls' })[1]
    return client ~= nil and client.initialized
  end, 20) then
    return fail('agentls never attached')
  end

  local response = client:request_sync('workspace/executeCommand', { command = 'agentls.codeReview', arguments = {} }, 60000, buf)
  if not response or response.err then
    return fail('agentls.codeReview failed: ' .. vim.inspect(response))
  end
  out.review = response.result

  if not vim.wait(10000, function() return #review_diagnostics(buf) == 2 end, 20) then
    return fail('the findings never became diagnostics: ' .. vim.inspect(vim.diagnostic.get(buf)))
  end
  out.published = review_diagnostics(buf)

  -- The user fixes line 2 by hand: its finding goes.
  vim.api.nvim_buf_set_lines(buf, 1, 2, false, { '    return a + b' })
  if not vim.wait(10000, function() return #review_diagnostics(buf) == 1 end, 20) then
    return fail('the fixed line kept its finding: ' .. vim.inspect(review_diagnostics(buf)))
  end
  out.after_typing = review_diagnostics(buf)

  -- The code action menu on line 5 dismisses the other.
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  vim.lsp.buf.code_action()
  if not vim.wait(10000, function() return #review_diagnostics(buf) == 0 end, 20) then
    return fail('the dismissed finding stayed: ' .. vim.inspect(review_diagnostics(buf)))
  end
  out.after_dismiss = review_diagnostics(buf)
end

local ok, problem = pcall(scenario)
if not ok then
  return fail(tostring(problem))
end
save()
vim.cmd('qa!')
