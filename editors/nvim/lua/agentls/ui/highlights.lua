-- The plugin's highlight groups, each a link to a standard group with `default = true`, so that a
-- colour scheme (or the user's own `nvim_set_hl`) can give it other colours; linked again after
-- `:colorscheme`, whose `:highlight clear` removes them.
local M = {}

--- Each group of the plugin and the standard group it links to by default.
M.LINKS = {
  AgentlsChip = 'Comment', -- a context chip under the prompt
  AgentlsChipHint = 'NonText', -- the hint after the chips
  AgentlsComment = 'Comment', -- a review comment beside its lines
  AgentlsPaneTitle = 'DiffText', -- the winbar of a review or conflict pane
  AgentlsReviewAdd = 'Added', -- the sign of a pending change that adds lines
  AgentlsReviewChange = 'Changed', -- … that changes lines
  AgentlsReviewDelete = 'Removed', -- … that deletes lines
  AgentlsReviewOld = 'DiffDelete', -- the lines a pending change replaced (inline diff)
  AgentlsToolPending = 'Comment', -- a tool step's state in the transcript
  AgentlsToolRunning = 'DiagnosticWarn',
  AgentlsToolDone = 'DiagnosticOk',
  AgentlsToolFailed = 'DiagnosticError',
  AgentlsWarning = 'WarningMsg', -- a warning in the chat's winbar
}

--- Link every group (keeping what a colour scheme or the user set), and again after `:colorscheme`.
function M.setup()
  for name, link in pairs(M.LINKS) do
    vim.api.nvim_set_hl(0, name, { link = link, default = true })
  end
  if not M.group then
    M.group = vim.api.nvim_create_augroup('agentls.highlights', { clear = true })
    vim.api.nvim_create_autocmd('ColorScheme', {
      group = M.group,
      callback = function()
        M.setup()
      end,
    })
  end
end

return M
