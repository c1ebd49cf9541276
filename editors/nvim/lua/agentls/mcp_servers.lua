-- `:AgentlsMcp`: the MCP servers (docs/protocol.md, agent/mcp/list and agent/mcp/set) in a picker —
-- running with what each offers, failed with its last error, disabled — and, for the one picked,
-- restart / disable / enable (enable and disable go to the user's config).
local client = require('agentls.client')
local notify = require('agentls.notify')

local M = {}

--- How a server reads in the picker: its name, state, and what it offers or why it failed.
---@param s agentls.McpServerInfo
---@return string
function M.describe(s)
  if s.status == 'running' then
    return ('%s  running · %d tools, %d resources, %d prompts'):format(s.name, s.tools, s.resources, s.prompts)
  elseif s.status == 'failed' then
    return ('%s  failed: %s'):format(s.name, s.error or 'no reason given')
  end
  return s.name .. '  disabled'
end

local function act(server)
  local actions = server.enabled and { 'restart', 'disable' } or { 'enable' }
  require('agentls.picker').select(actions, {
    prompt = 'MCP server ' .. M.describe(server),
    kind = 'agentls.mcp_action',
    format_item = function(action)
      return action
    end,
  }, function(action)
    if not action then
      return
    end
    client.request('agent/mcp/set', { name = server.name, action = action }, function(err, result)
      vim.schedule(function()
        if err or not result then
          return notify.say(
            ('agentls: %s %s: %s'):format(action, server.name, err and err.message or 'no answer'),
            vim.log.levels.WARN
          )
        end
        ---@cast result agentls.McpServersResult
        for _, now in ipairs(result.servers) do
          if now.name == server.name then
            notify.say('agentls: MCP server ' .. M.describe(now), vim.log.levels.INFO)
          end
        end
      end)
    end)
  end)
end

--- Show the servers; act on the one picked.
function M.pick()
  client.request('agent/mcp/list', {}, function(err, result)
    vim.schedule(function()
      if err or not result then
        return notify.say('agentls: the MCP servers: ' .. (err and err.message or 'no answer'), vim.log.levels.WARN)
      end
      ---@cast result agentls.McpServersResult
      if #result.servers == 0 then
        return notify.say('agentls: no MCP servers are configured (the mcp key of agentls.json)', vim.log.levels.INFO)
      end
      require('agentls.picker').select(result.servers, {
        prompt = 'MCP servers',
        kind = 'agentls.mcp_servers',
        format_item = M.describe,
      }, function(server)
        if server then
          act(server)
        end
      end)
    end)
  end)
end

return M
