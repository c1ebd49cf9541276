-- The session's mode (ask: a dialog before each edit; auto: edits land and wait for review; plan:
-- read-only) and effort (how hard the model thinks, among the levels its model supports): read when a
-- session shows, followed through `session.mode` / `session.effort` events, shown in the winbar, set
-- with :AgentlsMode / :AgentlsEffort (vim.ui.select without an argument).
local client = require('agentls.server.client')

local M = {}

M.mode = {} ---@type table<string, string>  mode by session
M.modes = nil ---@type table[]|nil  {id, name, description}[] from the server's last answer
M.effort = {} ---@type table<string, {effort: string, levels: string[]}>  by session

local function redraw()
  pcall(vim.cmd, 'redrawstatus!')
end

local function report(err)
  if err then
    vim.notify('agentls: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    return true
  end
end

-- Both spellings of the session key: the server ignores the one it does not read.
local function params(session_id, extra)
  return vim.tbl_extend('force', { sessionId = session_id, sessionID = session_id }, extra or {})
end

-- An effort request names the model picked for the chat's next prompts (:AgentlsModel), if any: its
-- levels are the ones offered and checked, not those of the model the session's last turn ran on.
local function effort_params(session_id, extra)
  local picked = require('agentls.chat').model
  return params(session_id, vim.tbl_extend('force', picked and { model = picked } or {}, extra or {}))
end

local function session_of(result, fallback)
  return result.sessionId or result.sessionID or fallback
end

local function set_mode(session_id, result)
  M.mode[session_id] = result.mode
  if type(result.modes) == 'table' and #result.modes > 0 then
    M.modes = result.modes
  end
  redraw()
end

local function set_effort(session_id, result)
  M.effort[session_id] = { effort = result.effort, levels = result.levels or {} }
  redraw()
end

--- Read the mode and effort of `session_id` (a server without them answers an error: nothing shows).
function M.fetch(session_id)
  client.request('agent/session/mode', params(session_id), function(err, result)
    if not err and result then
      set_mode(session_of(result, session_id), result)
    end
  end)
  client.request('agent/session/effort', effort_params(session_id), function(err, result)
    if not err and result then
      set_effort(session_of(result, session_id), result)
    end
  end)
end

--- An `agent/event` (registered with the client).
function M.on_event(event)
  local p = event.properties or {}
  if event.type == 'session.mode' then
    M.mode[p.sessionID] = p.mode
    redraw()
  elseif event.type == 'session.effort' then
    M.effort[p.sessionID] = { effort = p.effort, levels = p.levels or (M.effort[p.sessionID] or {}).levels or {} }
    redraw()
  end
end

--- The winbar items of `session_id`: its mode, and its effort when the model has levels.
function M.winbar_items(session_id)
  local items = {}
  if M.mode[session_id] then
    table.insert(items, 'mode ' .. M.mode[session_id])
  end
  local effort = M.effort[session_id]
  if effort and effort.effort and effort.effort ~= vim.NIL and #(effort.levels or {}) > 0 then
    table.insert(items, 'effort ' .. effort.effort)
  end
  return items
end

local function chat_session()
  local session_id = require('agentls.chat').session_id
  if not session_id then
    vim.notify('agentls: open a session first (:Agentls)', vim.log.levels.WARN)
  end
  return session_id
end

--- :AgentlsMode [mode]: set the chat session's mode, or pick it.
function M.set_mode(mode)
  local session_id = chat_session()
  if not session_id then
    return
  end
  if mode and mode ~= '' then
    return client.request('agent/session/mode', params(session_id, { mode = mode }), function(err, result)
      if not report(err) then
        set_mode(session_of(result, session_id), result)
      end
    end)
  end
  client.request('agent/session/mode', params(session_id), function(err, result)
    if report(err) then
      return
    end
    set_mode(session_of(result, session_id), result)
    vim.ui.select(M.modes or {}, {
      prompt = 'agentls mode',
      kind = 'agentls.mode',
      format_item = function(item)
        local mark = item.id == M.mode[session_id] and '● ' or '  '
        local about = item.description and item.description ~= '' and (' — ' .. item.description) or ''
        return mark .. (item.name or item.id) .. about
      end,
    }, function(item)
      if item then
        M.set_mode(item.id)
      end
    end)
  end)
end

--- :AgentlsEffort [level]: set the chat session's effort, or pick one of its model's levels.
function M.set_effort(level)
  local session_id = chat_session()
  if not session_id then
    return
  end
  if level and level ~= '' then
    return client.request('agent/session/effort', effort_params(session_id, { effort = level }), function(err, result)
      if not report(err) then
        set_effort(session_of(result, session_id), result)
      end
    end)
  end
  client.request('agent/session/effort', effort_params(session_id), function(err, result)
    if report(err) then
      return
    end
    set_effort(session_of(result, session_id), result)
    if #(result.levels or {}) == 0 then
      return vim.notify("agentls: this session's model has no effort levels", vim.log.levels.INFO)
    end
    vim.ui.select(result.levels, {
      prompt = 'agentls effort',
      kind = 'agentls.effort',
      format_item = function(item)
        return (item == result.effort and '● ' or '  ') .. item
      end,
    }, function(item)
      if item then
        M.set_effort(item)
      end
    end)
  end)
end

--- Completion of :AgentlsMode / :AgentlsEffort.
function M.complete_mode()
  local ids = {}
  for _, m in ipairs(M.modes or { { id = 'ask' }, { id = 'auto' }, { id = 'plan' } }) do
    table.insert(ids, m.id)
  end
  return ids
end

--- The effort levels of the chat's session, for :AgentlsEffort's completion.
function M.complete_effort()
  local session_id = require('agentls.chat').session_id
  return session_id and M.effort[session_id] and M.effort[session_id].levels or {}
end

return M
