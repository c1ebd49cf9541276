-- `:AgentlsMcp`: the MCP servers (docs/protocol.md, agent/mcp/list and agent/mcp/set) in a picker —
-- running with what each offers, failed with its last error, needing a login, disabled — and, for
-- the one picked, restart / disable / enable (enable and disable go to the user's config), and
-- log in for a remote one (the server opens the authorization page in the browser, through
-- window/showDocument; it restarts once the login is done).
local client = require('agentls.server.client')
local notify = require('agentls.ui.notify')

local M = {}

--- How a server reads in the picker: its name, state, and what it offers or why it failed.
---@param s agentls.McpServerInfo
---@return string
function M.describe(s)
  if s.status == 'running' then
    local login = s.auth == 'logged-in' and ' · logged in' or ''
    return ('%s  running · %d tools, %d resources, %d prompts%s'):format(
      s.name,
      s.tools,
      s.resources,
      s.prompts,
      login
    )
  elseif s.status == 'failed' then
    return ('%s  failed: %s'):format(s.name, s.error or 'no reason given')
  elseif s.status == 'needs-login' then
    return ('%s  needs login: pick it and log in (or run agentls mcp login %s)'):format(s.name, s.name)
  end
  return s.name .. '  disabled'
end

--- What the user can do with a server: a remote one behind OAuth can be logged in to.
---@param s agentls.McpServerInfo
---@return string[]
local function actions_for(s)
  if not s.enabled then
    return { 'enable' }
  elseif s.status == 'needs-login' then
    return { 'log in', 'disable' }
  elseif s.auth ~= nil and s.auth ~= vim.NIL then
    return { 'restart', 'log in', 'disable' }
  end
  return { 'restart', 'disable' }
end

local function act(server)
  local actions = actions_for(server)
  require('agentls.ui.picker').select(actions, {
    prompt = 'MCP server ' .. M.describe(server),
    kind = 'agentls.mcp_action',
    format_item = function(action)
      return action
    end,
  }, function(action)
    if not action then
      return
    end
    local wire = action == 'log in' and 'login' or action
    client.request('agent/mcp/set', { name = server.name, action = wire }, function(err, result)
      vim.schedule(function()
        if err or not result then
          return notify.say(
            ('agentls: %s %s: %s'):format(action, server.name, err and err.message or 'no answer'),
            vim.log.levels.WARN
          )
        end
        ---@cast result agentls.McpServersResult
        if result.login and result.login ~= vim.NIL then
          if not result.login.opened then -- the server could not have Neovim open it
            vim.ui.open(result.login.url)
          end
          return notify.say(
            ('agentls: log in to %s in your browser; the server starts once you have (%s)'):format(
              server.name,
              result.login.url
            ),
            vim.log.levels.INFO
          )
        end
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
      require('agentls.ui.picker').select(result.servers, {
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
