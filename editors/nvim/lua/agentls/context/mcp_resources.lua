-- The MCP servers' resources as context items (docs/protocol.md, agent/mcp/resources): `@server:uri`
-- in the prompt (a resource template's URI with its variables filled in: `@docs:notes://plan` for
-- `notes://{name}`). The `@` completion offers them after the built-in kinds; the server reads and
-- counts each as any other item (agentls.context.items), and a chip shows why one cannot be attached.
local client = require('agentls.server.client')

local M = {}

---@type agentls.McpResourcesResult
M.listed = { resources = {}, templates = {} }
M.servers = {} -- the names of the servers that listed something (server → true)

local asking = false -- a request is on its way

--- Fetch the list again (asynchronously: completion and chips use it from the next keystroke on);
--- one request at a time, however fast the user types.
function M.fetch()
  if asking then
    return
  end
  asking = true
  client.request('agent/mcp/resources', {}, function(err, result)
    asking = false
    if err or not result then
      return
    end
    ---@cast result agentls.McpResourcesResult
    M.listed = result
    local servers = {}
    for _, entry in ipairs(result.resources) do
      servers[entry.server] = true
    end
    for _, entry in ipairs(result.templates) do
      servers[entry.server] = true
    end
    M.servers = servers
  end)
end

--- Completion entries for the text typed after a word-start `@` (`server:uri`).
function M.completions(base)
  local out = {}
  for _, r in ipairs(M.listed.resources) do
    local word = r.server .. ':' .. r.uri
    if vim.startswith(word, base) then
      table.insert(out, { word = word, menu = '[mcp]', info = r.description ~= '' and r.description or r.name })
    end
  end
  for _, t in ipairs(M.listed.templates) do
    local word = t.server .. ':' .. t.uriTemplate
    if vim.startswith(word, base) then
      local info = ('%s (fill in %s)'):format(
        t.description ~= '' and t.description or t.name,
        table.concat(t.arguments, ', ')
      )
      table.insert(out, { word = word, menu = '[mcp template]', info = info })
    end
  end
  return out
end

--- The MCP items the `@server:uri` references of `text` name (and the errors of those that cannot
--- be attached as typed), for the servers that listed something; `skip`: kinds that are not servers.
function M.items(text, skip)
  local items, errors = {}, {}
  for server, uri in (' ' .. text):gmatch('%s@([%w_%-]+):(%S+)') do
    uri = uri:gsub('[,.;!?)]+$', '')
    if M.servers[server] and not skip[server] then
      local variable = uri:match('{([^}]*)}')
      if variable then
        table.insert(errors, ('@%s:%s: fill in {%s} of the template'):format(server, uri, variable))
      else
        table.insert(items, { kind = 'mcp', server = server, uri = uri })
      end
    end
  end
  return items, errors
end

return M
