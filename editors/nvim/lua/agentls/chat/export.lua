-- :AgentlsExport[!] [path]: the chat's session as Markdown (`agent/session/export`, the same text
-- as `agentls sessions export --format md`) in a new buffer, or written to `path` (an existing file
-- only with !: nothing is overwritten by accident).
local client = require('agentls.server.client')

local M = {}

--- Export `session_id` to `path` (nil: a new buffer); `force` overwrites an existing file.
function M.export(session_id, path, force)
  if not session_id then
    return vim.notify('agentls: open a session first (:Agentls)', vim.log.levels.WARN)
  end
  local target = path and path ~= '' and vim.fn.fnamemodify(vim.fn.expand(path), ':p') or nil
  if target and not force and vim.uv.fs_stat(target) then
    return vim.notify(('agentls: %s exists; :AgentlsExport! %s replaces it'):format(target, path), vim.log.levels.ERROR)
  end
  client.request('agent/session/export', { sessionID = session_id, format = 'md' }, function(err, result)
    if err then
      return vim.notify('agentls: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    local lines = vim.split(result.text or '', '\n', { plain = true })
    if lines[#lines] == '' then
      table.remove(lines)
    end
    if not target then
      vim.cmd('tabnew')
      local buf = vim.api.nvim_get_current_buf()
      vim.bo[buf].buftype = 'nofile'
      vim.bo[buf].bufhidden = 'wipe'
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
      vim.bo[buf].filetype = 'markdown'
      pcall(vim.api.nvim_buf_set_name, buf, ('agentls://export/%s.md'):format(session_id))
      return
    end
    local ok, write_err = pcall(vim.fn.writefile, lines, target)
    if not ok or write_err ~= 0 then
      return vim.notify(
        ('agentls: could not write %s: %s'):format(target, ok and 'writefile failed' or write_err),
        vim.log.levels.ERROR
      )
    end
    vim.notify(('agentls: the session is in %s'):format(vim.fn.fnamemodify(target, ':~:.')), vim.log.levels.INFO)
  end)
end

return M
