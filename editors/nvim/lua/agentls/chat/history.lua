-- The chat renders a session's last `last_messages` messages (a page of `agent/session/messages`);
-- older ones come a page at a time on request: a line at the top of the transcript says how
-- (`load_older` key, `gL`), and the cursor stays on the message it was on (agentls.chat.render puts them
-- above, a chunk of lines per turn of the loop).
local client = require('agentls.server.client')
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

--- Every message (`last_messages` = 0) still comes a page of PAGE at a time, newest first, each
--- page by itself: the answer for a whole long session is megabytes, which Neovim decodes in one
--- go, blocking everything else (issue 29).
M.PAGE = 100

--- The size of the pages asked for.
function M.page()
  return M.limit() or M.PAGE
end

--- The params of the first page of `session_id`.
function M.first_page(session_id)
  return { sessionID = session_id, limit = M.page() }
end

--- The first page came: remember whether older messages may exist (a full page).
function M.loaded(session_id, messages)
  M.older[session_id] = #messages >= M.page()
end

--- When every message is wanted, the page before the loaded ones follows by itself (call once
--- the page is in the state).
function M.more(session_id)
  if not M.limit() and M.older[session_id] then
    M.load_older(session_id)
  end
end

local OLDER_KEY = '\0older'

--- The transcript's block that offers older messages, when there may be some (agentls.chat.render).
function M.block(session_id)
  if not M.older[session_id] then
    return nil
  end
  return {
    key = OLDER_KEY,
    make = function()
      local key = config.options.keymaps.load_older
      local how = key and ('%s loads %d more'):format(key, M.page()) or 'require("agentls.chat.history").load_older()'
      local coming = M.loading[session_id] or not M.limit() -- (every message: they come by themselves)
      local what = coming and 'loading older messages…' or ('older messages: ' .. how)
      return { lines = { '▲ ' .. what } }
    end,
  }
end

--- Load the page before the oldest loaded message of `session_id` into the chat.
function M.load_older(session_id)
  local t = session_id and state().transcripts[session_id]
  if not t or not M.older[session_id] or M.loading[session_id] then
    return
  end
  M.loading[session_id] = true
  local params = { sessionID = session_id, limit = M.page(), before = t.order[1] }
  client.request('agent/session/messages', params, function(err, result)
    M.loading[session_id] = false
    if err then
      return vim.notify('agentls: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    local messages = result.messages or {}
    M.older[session_id] = #messages >= M.page()
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
    M.more(session_id)
  end)
end

return M
