-- The user's own language servers' diagnostics, sent to the agent (`agent/diagnostics`): every time
-- they change for a project buffer — so after an agent edit the agent sees the errors it caused —
-- and with :AgentlsFix, as a prompt to fix them.
local client = require('agentls.server.client')

local M = {}

local function to_lsp(d)
  return {
    range = {
      start = { line = d.lnum, character = d.col },
      ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
    },
    message = d.message,
    severity = d.severity,
    source = d.source,
    code = d.code,
  }
end

--- Send `buf`'s diagnostics from every source except agentls itself.
function M.forward(buf)
  if not client.ready or not client.is_project_file(buf) then
    return
  end
  local own = client.id and vim.lsp.diagnostic.get_namespace(client.id) or nil
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.namespace ~= own then
      table.insert(out, to_lsp(d))
    end
  end
  client.notify('agent/diagnostics', { uri = vim.uri_from_bufnr(buf), diagnostics = out })
end

--- A prompt asking the agent to fix the diagnostics of `buf` (on lines first..last when given).
function M.fix_prompt(buf, first, last)
  local lines = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if not first or (d.lnum + 1 >= first and d.lnum + 1 <= last) then
      table.insert(
        lines,
        ('- line %d: %s%s'):format(d.lnum + 1, d.message, d.source and (' [' .. d.source .. ']') or '')
      )
    end
  end
  if #lines == 0 then
    return nil
  end
  local files = require('agentls.context.files')
  return ('Fix these problems in %s:\n%s'):format(
    files.reference(vim.api.nvim_buf_get_name(buf)),
    table.concat(lines, '\n')
  )
end

return M
