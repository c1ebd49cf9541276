-- A stock Neovim 0.11 user asks agentls for a code review: no plugin, only vim.lsp. The findings
-- arrive as vim.diagnostic entries; the user's own edit clears one, the code action menu (Neovim's
-- vim.ui.select, picking by title from a queue) dismisses the other. Run by
-- tests/stock/test_neovim_code_review.py; results go to JSON.
local user = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/nvim_user.lua')
local spec, out, save, fail = user.spec, user.out, user.save, user.fail
out.menus = {}
user.pick_by_title(out.menus, user.action_title)
user.start({ dialogMinRead = 0 })

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
  local client = user.attached(buf)
  if not client then
    return
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
