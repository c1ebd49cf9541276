-- The diff of a permission dialog that changes several files at once (a rename by a language
-- server: docs/protocol.md, "Refactors"), shown whole in a tab of its own while the dialog asks; a
-- one-file change has its side-by-side preview instead (review.preview).
local M = {}

--- Show `diff` (a unified diff of one or more files); returns the function that closes it.
function M.show(diff)
  local previous = vim.api.nvim_get_current_tabpage()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, ('agentls://patch/%d'):format(vim.uv.hrtime()))
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(diff, '\n', { trimempty = true }))
  vim.bo[buf].filetype, vim.bo[buf].modifiable, vim.bo[buf].bufhidden = 'diff', false, 'wipe'
  vim.cmd('tab split')
  local tab = vim.api.nvim_get_current_tabpage()
  vim.api.nvim_win_set_buf(0, buf)
  vim.wo.winbar = '%#DiffText# proposed change (all files) %*'
  return function()
    if vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
      vim.cmd('tabclose ' .. vim.api.nvim_tabpage_get_number(tab))
    end
    if vim.api.nvim_tabpage_is_valid(previous) then
      vim.api.nvim_set_current_tabpage(previous)
    end
  end
end

return M
