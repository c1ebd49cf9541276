-- The chat renders a session's last `last_messages` messages (a page of `agent/session/messages`);
-- older ones come a page at a time on request: a line at the top of the transcript says how
-- (`load_older` key, `gL`), and the cursor stays on the message it was on (agentls.render puts them
-- above, a chunk of lines per turn of the loop).
local client = require('agentls.client')
local config = require('agentls.config')

local M = {}

M.older = {} ---@type table<string, boolean>  sessions that may have messages older than those loaded
M.loading = {} ---@type table<string, boolean>

local function state()
  return require('agentls').state
end

--- The page size: nil for every message (`last_messages` = 0).
function M.limit()
  local n = config.options.last_messages
  return (n and n > 0) and math.floor(n) or nil
end

--- The params of the first page of `session_id`.
function M.first_page(session_id)
  -- All: a page bigger than any session (without a limit the server answers its newest 100).
  return { sessionID = session_id, limit = M.limit() or 1000000000 }
end

--- The first page came: remember whether older messages may exist (a full page).
function M.loaded(session_id, messages)
  local limit = M.limit()
  M.older[session_id] = limit ~= nil and #messages >= limit
end

local OLDER_KEY = '\0older'

--- The transcript's block that offers older messages, when there may be some (agentls.render).
function M.block(session_id)
  if not M.older[session_id] then
    return nil
  end
  return { key = OLDER_KEY, make = function()
    local key = config.options.keymaps.load_older
    local how = key and ('%s loads %d more'):format(key, M.limit() or 0) or 'require("agentls.history").load_older()'
    local what = M.loading[session_id] and 'loading older messages…' or ('older messages: ' .. how)
    return { lines = { '▲ ' .. what } }
  end }
end

--- Load the page before the oldest loaded message of `session_id` into the chat.
function M.load_older(session_id)
  local t = session_id and state().transcripts[session_id]
  if not t or not M.older[session_id] or M.loading[session_id] then
    return
  end
  M.loading[session_id] = true
  local params = { sessionID = session_id, limit = M.limit(), before = t.order[1] }
  client.request('agent/session/messages', params, function(err, result)
    M.loading[session_id] = false
    if err then
      return vim.notify('agentls: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    local messages = result.messages or {}
    M.older[session_id] = #messages >= (M.limit() or math.huge)
    t = state():transcript(session_id)
    local added = {}
    for _, msg in ipairs(messages) do
      if not t.messages[msg.info.id] then
        local m = { info = msg.info, parts = {}, index = {} }
        for _, part in ipairs(msg.parts or {}) do
          table.insert(m.parts, part)
          m.index[part.id] = part
        end
        t.messages[msg.info.id] = m
        table.insert(added, msg.info.id)
      end
    end
    t.order = vim.list_extend(added, t.order) -- the page is older than all loaded, oldest first
    -- The views put them above what they show (windows keep their place), a chunk per turn.
    state():emit('older', session_id, {})
  end)
end

return M
