-- Background work: the sub-agents a session's `task` calls started in the background and its
-- background shells (docs/protocol.md, agent/background/*). Kept from the `background.*` events and
-- `agent/background/list`; the winbar counts what runs; :AgentlsAgents lists them in a picker —
-- a sub-agent to open, message or stop, a shell to read or stop. A sub-agent that ends is said with
-- `vim.notify` and the autocmd `User AgentlsAgentEnded` (data: the BackgroundAgent and its summary).
local client = require('agentls.server.client')

local M = {}

---@type table<string, agentls.BackgroundAgent>  by the sub-agent's session id
M.agents = {}
---@type table<string, agentls.BackgroundShell>  by shell id
M.shells = {}

local function redraw()
  vim.schedule(function()
    pcall(vim.cmd, 'redrawstatus!')
  end)
end

local function report(err)
  if err then
    vim.notify('agentls: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
  end
  return err ~= nil
end

--- Take what `agent/background/list` answered for `session_id` (what it had of that session is
--- replaced: after a server restart, the old server's sub-agents and shells are gone).
---@param result agentls.BackgroundListResult
---@param session_id string
function M.take(result, session_id)
  for id, agent in pairs(M.agents) do
    if agent.parentID == session_id then
      M.agents[id] = nil
    end
  end
  for id, shell in pairs(M.shells) do
    if shell.sessionID == session_id then
      M.shells[id] = nil
    end
  end
  for _, agent in ipairs(result.agents or {}) do
    M.agents[agent.sessionID] = agent
  end
  for _, shell in ipairs(result.shells or {}) do
    M.shells[shell.id] = shell
  end
  redraw()
end

--- An `agent/event` (registered with the client).
---@param event agentls.AgentEvent
function M.on_event(event)
  local p = event.properties or {}
  if event.type == 'background.agent.updated' then
    M.agents[p.agent.sessionID] = p.agent
    redraw()
  elseif event.type == 'background.agent.ended' then
    M.agents[p.agent.sessionID] = p.agent
    redraw()
    M.ended(p)
  elseif event.type == 'background.shell.updated' then
    M.shells[p.shell.id] = p.shell
    redraw()
  end
end

--- Whether an error of `session_id` is said already: a background sub-agent's abort is its stop,
--- which `M.ended` announces (one message, not two).
function M.said(session_id, err)
  return session_id ~= nil and M.agents[session_id] ~= nil and err.name == 'aborted'
end

---@param ended agentls.BackgroundAgentEnded
function M.ended(ended)
  local a = ended.agent
  local how = a.status == 'completed' and ('finished: ' .. ended.summary)
    or a.status == 'stopped' and 'was stopped'
    or ended.summary
  vim.schedule(function()
    require('agentls.ui.notify').say(
      ('agentls: the background sub-agent @%s (%s) %s'):format(a.agent, a.description, how),
      vim.log.levels.INFO
    )
    vim.api.nvim_exec_autocmds('User', { pattern = 'AgentlsAgentEnded', data = ended })
  end)
end

local function sorted(map, key)
  local list = vim.tbl_values(map)
  table.sort(list, function(x, y)
    return x[key] < y[key]
  end)
  return list
end

--- The sub-agents `session_id` started (running and ended), oldest first.
---@return agentls.BackgroundAgent[]
function M.agents_of(session_id)
  return vim.tbl_filter(function(a)
    return a.parentID == session_id
  end, sorted(M.agents, 'started'))
end

--- The session's background shells, oldest first.
---@return agentls.BackgroundShell[]
function M.shells_of(session_id)
  return vim.tbl_filter(function(s)
    return s.sessionID == session_id
  end, sorted(M.shells, 'started'))
end

local function plural(n, one, many)
  return ('%d %s'):format(n, n == 1 and one or many)
end

--- The winbar's item: what of `session_id` runs in the background ("2 agents · 1 shell"), or nil.
function M.winbar_item(session_id)
  local agents, shells = 0, 0
  for _, a in ipairs(M.agents_of(session_id)) do
    agents = agents + (a.status == 'running' and 1 or 0)
  end
  for _, s in ipairs(M.shells_of(session_id)) do
    shells = shells + (s.status == 'running' and 1 or 0)
  end
  local items = {}
  if agents > 0 then
    table.insert(items, plural(agents, 'agent', 'agents'))
  end
  if shells > 0 then
    table.insert(items, plural(shells, 'shell', 'shells'))
  end
  return #items > 0 and ('⧗ ' .. table.concat(items, ' · ')) or nil
end

--- "45s", "3m07s", "1h02m".
function M.elapsed(ms)
  local s = math.max(0, math.floor(ms / 1000))
  if s < 60 then
    return s .. 's'
  end
  local m = math.floor(s / 60)
  if m < 60 then
    return ('%dm%02ds'):format(m, s % 60)
  end
  return ('%dh%02dm'):format(math.floor(m / 60), m % 60)
end

local function now_ms()
  return os.time() * 1000
end

local function tokens(n)
  return n >= 1000 and ('%.1fk tokens'):format(n / 1000) or (n .. ' tokens')
end

--- A sub-agent in one line: name, task, step and tool, tokens, time.
---@param a agentls.BackgroundAgent
function M.agent_line(a, now)
  local time = M.elapsed((a.ended or now or now_ms()) - a.started)
  local doing
  if a.status == 'running' then
    doing = ('step %d, %s'):format(a.step + 1, a.tool and ('running ' .. a.tool) or 'thinking')
  else
    doing = (a.status == 'failed' and a.error) and ('failed: ' .. a.error) or a.status
  end
  return ('@%s  %s — %s · %s · %s'):format(a.agent, a.description, doing, tokens(a.tokens), time)
end

--- A shell in one line: id, command, state, age.
---@param s agentls.BackgroundShell
function M.shell_line(s, now)
  local state = s.status == 'exited' and ('exited %s'):format(s.exitCode or '?') or s.status
  return ('%s  $ %s — %s · %s'):format(s.id, s.command, state, M.elapsed((now or now_ms()) - s.started))
end

local function act(method, params, done)
  client.request(method, params, function(err, result)
    if not report(err) and done then
      done(result)
    end
  end)
end

--- Stop a sub-agent (its turn, commands and background shells).
function M.stop(session_id)
  act('agent/background/stop', { sessionID = session_id }, function(agent)
    M.agents[agent.sessionID] = agent
    redraw()
  end)
end

--- Ask for a message (vim.ui.input) and queue it into the running sub-agent.
function M.message(session_id)
  local agent = M.agents[session_id]
  local prompt = ('Message to @%s (%s): '):format(
    agent and agent.agent or '?',
    agent and agent.description or session_id
  )
  vim.ui.input({ prompt = prompt }, function(text)
    if text and vim.trim(text) ~= '' then
      act('agent/background/message', { sessionID = session_id, text = text }, function()
        vim.notify('agentls: sent; its next step sees it', vim.log.levels.INFO)
      end)
    end
  end)
end

--- Kill a background shell.
function M.stop_shell(shell_id)
  act('agent/background/shell/stop', { shellID = shell_id }, function(shell)
    M.shells[shell.id] = shell
    redraw()
  end)
end

local function choose(entry)
  local actions
  if entry.agent then
    local a = entry.agent
    actions = a.status == 'running' and { 'Open transcript', 'Message', 'Stop' } or { 'Open transcript' }
  else
    actions = entry.shell.status == 'running' and { 'Last lines', 'Stop' } or { 'Last lines' }
  end
  local opts = { prompt = entry.text, kind = 'agentls.background_action', format_item = tostring }
  vim.ui.select(actions, opts, function(action)
    if action == 'Open transcript' then
      require('agentls.sessions').switch(entry.agent.sessionID)
    elseif action == 'Message' then
      M.message(entry.agent.sessionID)
    elseif action == 'Stop' and entry.agent then
      M.stop(entry.agent.sessionID)
    elseif action == 'Stop' then
      M.stop_shell(entry.shell.id)
    elseif action == 'Last lines' then
      vim.notify(entry.shell.tail ~= '' and entry.shell.tail or '(no output yet)', vim.log.levels.INFO)
    end
  end)
end

--- :AgentlsAgents — the session's background sub-agents and shells, fresh from the server, in a
--- picker; the one picked offers its actions.
---@param session_id? string  (default: the chat's session)
function M.pick(session_id)
  session_id = session_id or require('agentls.chat').session_id
  if not session_id then
    return vim.notify('agentls: no session in the chat', vim.log.levels.INFO)
  end
  act('agent/background/list', { sessionID = session_id }, function(result)
    M.take(result, session_id)
    local now, entries = now_ms(), {}
    for _, a in ipairs(M.agents_of(session_id)) do
      table.insert(entries, { agent = a, text = M.agent_line(a, now) })
    end
    for _, s in ipairs(M.shells_of(session_id)) do
      table.insert(entries, { shell = s, text = M.shell_line(s, now) })
    end
    if #entries == 0 then
      return vim.notify('agentls: nothing runs in the background in this session', vim.log.levels.INFO)
    end
    require('agentls.ui.picker').select(entries, {
      prompt = 'Background agents and shells',
      kind = 'agentls.background',
      format_item = function(entry)
        return entry.text
      end,
      preview = function(entry, show)
        show(vim.split(entry.shell and entry.shell.tail or entry.text, '\n', { plain = true }))
      end,
    }, function(entry)
      if entry then
        choose(entry)
      end
    end)
  end)
end

return M
