-- The agent's pending changes shown inline: above each pending hunk in a file's buffer, the lines it
-- replaced (or removed), as virtual lines (`- old line`, AgentlsReviewOld), so the change reads as a
-- diff in place without opening anything. The hunk's own lines are the buffer's text, marked by
-- agentls.review.signs. On by default (`inline_diff`); :AgentlsInlineDiff turns it off and on.
local config = require('agentls.config')

local M = {}

M.ns = vim.api.nvim_create_namespace('agentls_review_inline')
M.enabled = nil ---@type boolean|nil  nil: the `inline_diff` option

--- Whether the old lines are shown.
function M.on()
  if M.enabled == nil then
    return config.options.inline_diff
  end
  return M.enabled
end

local function strip(line)
  return (line:gsub('\r?\n$', ''))
end

--- Draw the old lines of the pending hunks of `buf` (or clear them when off).
function M.draw(buf)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  if not M.on() then
    return
  end
  for _, item in ipairs(require('agentls.review.signs').in_buffer(buf)) do
    local hunk = item.hunk
    if hunk.kind == 'text' and #(hunk.before or {}) > 0 then
      local lines = {}
      for _, line in ipairs(hunk.before) do
        table.insert(lines, { { '- ' .. strip(line), 'AgentlsReviewOld' } })
      end
      vim.api.nvim_buf_set_extmark(buf, M.ns, item.first, 0, { virt_lines = lines, virt_lines_above = true })
    end
  end
end

--- Turn the inline diff off or on (:AgentlsInlineDiff); `on`: a given state instead of toggling.
function M.toggle(on)
  if on == nil then
    on = not M.on()
  end
  M.enabled = on
  for buf in pairs(require('agentls.review.signs').marks) do
    M.draw(buf)
  end
  vim.notify('agentls: the inline diff of pending changes is ' .. (on and 'on' or 'off'), vim.log.levels.INFO)
end

--- The highlight group of the old lines (a colour scheme may set its own: agentls.ui.highlights).
function M.setup()
  require('agentls.ui.highlights').setup()
end

return M
