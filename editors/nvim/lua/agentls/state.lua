-- What the plugin knows about the agent: sessions, their messages and parts, status and todos,
-- built only from `agent/event` notifications and request results. No UI here: views subscribe
-- and are told what changed, so the reducer can be tested on recorded event streams.
local M = {}
M.__index = M

---@class agentls.Transcript
---@field order string[]                 message ids, oldest first
---@field messages table<string, {info: table, parts: table[], index: table<string, table>}>

--- A new, empty state: no sessions, transcripts or listeners.
function M.new()
  return setmetatable({
    sessions = {}, ---@type table<string, table>   Session by id
    transcripts = {}, ---@type table<string, agentls.Transcript>
    status = {}, ---@type table<string, table>     {type = idle|busy|retry, ...} by session
    todos = {}, ---@type table<string, table[]>
    queue = {}, ---@type table<string, table[]>  prompts waiting for the running turn, next first
    config = nil, ---@type table|nil  the agent/config answer: agents, models, defaultAgent, defaultModel, modelLimits
    moved = {}, ---@type table<string, string>  default models a settings change replaced -> the new default
    dropped = {}, ---@type table<string, boolean>  models a settings change took out of the list
    listeners = {},
  }, M)
end

--- Call `fn(kind, session_id, data)` on every change; returns a function that unsubscribes.
function M:subscribe(fn)
  self.listeners[fn] = true
  return function()
    self.listeners[fn] = nil
  end
end

--- Tell every listener that `kind` changed in `session_id` (data: what changed).
function M:emit(kind, session_id, data)
  for fn in pairs(self.listeners) do
    fn(kind, session_id, data)
  end
end

---@return agentls.Transcript
function M:transcript(session_id)
  local t = self.transcripts[session_id]
  if not t then
    t = { order = {}, messages = {} }
    self.transcripts[session_id] = t
  end
  return t
end

-- Insert `id` into the sorted list `list` (ids are ascending: creation order sorts as text).
local function insert_sorted(list, id)
  local pos = #list + 1
  while pos > 1 and list[pos - 1] > id do
    pos = pos - 1
  end
  table.insert(list, pos, id)
  return pos
end

local function ensure_message(t, message_id, session_id)
  local m = t.messages[message_id]
  if not m then
    m = { info = { id = message_id, sessionID = session_id }, parts = {}, index = {} }
    t.messages[message_id] = m
    insert_sorted(t.order, message_id)
  end
  return m
end

---@param info agentls.MessageInfo
function M:set_message(info)
  local t = self:transcript(info.sessionID)
  local m = ensure_message(t, info.id, info.sessionID)
  m.info = info
  self:emit('message', info.sessionID, { messageID = info.id })
end

---@param part agentls.Part
function M:set_part(part)
  local t = self:transcript(part.sessionID)
  local m = ensure_message(t, part.messageID, part.sessionID)
  local old = m.index[part.id]
  if old then
    for i, p in ipairs(m.parts) do
      if p.id == part.id then
        m.parts[i] = part
        break
      end
    end
  else
    local pos = #m.parts + 1
    while pos > 1 and m.parts[pos - 1].id > part.id do
      pos = pos - 1
    end
    table.insert(m.parts, pos, part)
  end
  m.index[part.id] = part
  self:emit('part', part.sessionID, { messageID = part.messageID, partID = part.id })
end

---@param p agentls.PartDelta
function M:append_delta(p)
  local t = self:transcript(p.sessionID)
  local m = t.messages[p.messageID]
  local part = m and m.index[p.partID]
  if not part then
    -- A delta for a part we never saw (we connected mid-stream): start it from the delta.
    part = { id = p.partID, sessionID = p.sessionID, messageID = p.messageID, type = 'text', text = '' }
    self:set_part(part)
  end
  -- Kept as chunks until read (M.settle): concatenating on every delta is quadratic in the answer.
  local chunks = part.__chunks
  if not chunks then
    chunks = {}
    part.__chunks = chunks
  end
  local field_chunks = chunks[p.field]
  if not field_chunks then
    field_chunks = { part[p.field] or '' }
    chunks[p.field] = field_chunks
  end
  field_chunks[#field_chunks + 1] = p.delta
  self:emit('delta', p.sessionID, { messageID = p.messageID, partID = p.partID, field = p.field, delta = p.delta })
end

--- Remove a message from its transcript, and say so (`removed`).
function M:remove_message(session_id, message_id)
  local t = self:transcript(session_id)
  if t.messages[message_id] then
    t.messages[message_id] = nil
    for i, id in ipairs(t.order) do
      if id == message_id then
        table.remove(t.order, i)
        break
      end
    end
    self:emit('removed', session_id, { messageID = message_id })
  end
end

--- Remove a part from its message, and say so (`removed`).
function M:remove_part(session_id, message_id, part_id)
  local m = self:transcript(session_id).messages[message_id]
  if m and m.index[part_id] then
    m.index[part_id] = nil
    for i, p in ipairs(m.parts) do
      if p.id == part_id then
        table.remove(m.parts, i)
        break
      end
    end
    self:emit('removed', session_id, { messageID = message_id, partID = part_id })
  end
end

--- `part` with its streamed chunks joined into its fields (call before reading a streamed part).
function M.settle(part)
  local chunks = part.__chunks
  if chunks then
    for field, list in pairs(chunks) do
      part[field] = table.concat(list)
    end
    part.__chunks = nil
  end
  return part
end

--- Replace a session's transcript with `messages` ({info, parts}[] from agent/session/messages).
---@param session_id string
---@param messages agentls.MessageWithParts[]
function M:load(session_id, messages)
  local t = { order = {}, messages = {} }
  for _, msg in ipairs(messages) do
    local m = { info = msg.info, parts = {}, index = {} }
    for _, part in ipairs(msg.parts or {}) do
      table.insert(m.parts, part)
      m.index[part.id] = part
    end
    t.messages[msg.info.id] = m
    insert_sorted(t.order, msg.info.id)
  end
  self.transcripts[session_id] = t
  self:emit('reset', session_id, {})
end

--- Apply one `agent/event` {type, properties}.
---@param event agentls.AgentEvent
function M:apply(event)
  local kind, p = event.type, event.properties or {}
  if kind == 'message.part.delta' then
    self:append_delta(p)
  elseif kind == 'message.part.updated' then
    self:set_part(p.part)
  elseif kind == 'message.updated' then
    self:set_message(p.info)
  elseif kind == 'message.removed' then
    self:remove_message(p.sessionID, p.messageID)
  elseif kind == 'message.part.removed' then
    self:remove_part(p.sessionID, p.messageID, p.partID)
  elseif kind == 'session.created' or kind == 'session.updated' then
    self.sessions[p.info.id] = p.info
    self:emit('session', p.info.id, p.info)
  elseif kind == 'session.deleted' then
    self.sessions[p.info.id] = nil
    self.transcripts[p.info.id] = nil
    self:emit('deleted', p.info.id, p.info)
  elseif kind == 'session.status' then
    self.status[p.sessionID] = p.status
    self:emit('status', p.sessionID, p.status)
  elseif kind == 'session.idle' then
    self.status[p.sessionID] = { type = 'idle' }
    self:emit('status', p.sessionID, self.status[p.sessionID])
  elseif kind == 'session.error' then
    self:emit('error', p.sessionID, p.error)
  elseif kind == 'agent.warning' then
    self:emit('warning', p.sessionID, p)
  elseif kind == 'queue.added' then
    local items = self.queue[p.sessionID] or {}
    table.insert(items, math.min((p.position or #items) + 1, #items + 1), p.item)
    self.queue[p.sessionID] = items
    self:emit('queue', p.sessionID, items)
  elseif kind == 'queue.updated' or kind == 'queue.removed' or kind == 'queue.started' then
    local id = kind == 'queue.updated' and p.item.id or p.id
    local items = self.queue[p.sessionID] or {}
    for i, item in ipairs(items) do
      if item.id == id then
        if kind == 'queue.updated' then
          items[i] = p.item
        else
          table.remove(items, i)
        end
        break
      end
    end
    self:emit('queue', p.sessionID, items)
  elseif kind == 'todo.updated' then
    self.todos[p.sessionID] = p.todos
    self:emit('todos', p.sessionID, p.todos)
  elseif kind == 'config.updated' then
    local config = vim.deepcopy(p)
    config.changed = nil
    self:set_config(config)
  end
end

--- The server's agent/config answer, from the request or a `config.updated` event. Like the server,
--- it remembers which default model a change replaced: sessions on the old default follow it.
---@param config agentls.AgentConfig|agentls.ConfigUpdated
function M:set_config(config)
  local old = self.config and self.config.defaultModel
  local new = config.defaultModel
  if old and new and old ~= new then
    for from, to in pairs(self.moved) do
      if to == old then
        self.moved[from] = new
      end
    end
    self.moved[old] = new
    self.moved[new] = nil
  end
  if self.config then
    local listed = {}
    for _, m in ipairs(config.models or {}) do
      listed[m] = true
      self.dropped[m] = nil
    end
    for _, m in ipairs(self.config.models or {}) do
      if not listed[m] then
        self.dropped[m] = true
      end
    end
  end
  self.config = config
  self:emit('config', nil, config)
end

--- The connection ended: what the server knew is gone with it (a restarted server starts afresh).
function M:disconnected()
  self.config = nil
  self.queue = {} -- the server kept its queue in memory
  self.moved = {}
  self.dropped = {}
end

--- The newest message of a session sent by `role` ('user' or 'assistant').
function M:last_of(session_id, role)
  local t = self.transcripts[session_id]
  for i = #(t and t.order or {}), 1, -1 do
    local info = t.messages[t.order[i]].info
    if info.role == role then
      return info
    end
  end
end

--- The newest user message of a session.
function M:last_user(session_id)
  return self:last_of(session_id, 'user')
end

--- The agent and model the server gives the next prompt of `session_id` that names neither: the
--- session's last ones (a model that was the default follows a changed default), else the defaults.
--- `explicit`: the prompt must name that model — the session's last one was taken out of the settings
--- (the server now falls back too; naming the default keeps an older server from going on with it).
---@return string|nil agent, string|nil model, boolean explicit
function M:defaults(session_id)
  local config = self.config or {}
  local agent, model
  local last = session_id and self:last_user(session_id)
  if last then
    for _, a in ipairs(config.agents or {}) do
      if a.name == last.agent then
        agent = a.name
      end
    end
    if last.model and last.model.providerID then
      local ref = last.model.providerID .. '/' .. last.model.modelID
      model = self.moved[ref] or ref
    end
  end
  local explicit = model ~= nil and self.dropped[model] == true and config.defaultModel ~= nil
  if explicit then
    model = nil
  end
  return agent or config.defaultAgent, model or config.defaultModel, explicit
end

--- The newest assistant message of a session (for tokens, cost and context use).
function M:last_assistant(session_id)
  return self:last_of(session_id, 'assistant')
end

--- Total cost of a session's assistant messages.
function M:cost(session_id)
  local total, t = 0, self.transcripts[session_id]
  for _, id in ipairs(t and t.order or {}) do
    total = total + (t.messages[id].info.cost or 0)
  end
  return total
end

return M
