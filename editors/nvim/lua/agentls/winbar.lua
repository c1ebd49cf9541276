-- The chat's winbar: the session's title, a dialog waiting for an answer, its status (idle, busy,
-- the retry countdown), the tokens of the last step, the session's cost and context use (when not
-- zero), and the agent · model of the next prompt; cut after the title when the window is narrow;
-- before a session shows, what the chat waits for (or why it has none).
local client = require('agentls.client')
local config = require('agentls.config')

local M = {}

local function state()
  return require('agentls').state
end

local function chat()
  return require('agentls.chat')
end

local function human(n)
  if n >= 1000000 then
    return ('%.1fM'):format(n / 1000000)
  elseif n >= 1000 then
    return ('%.1fk'):format(n / 1000)
  end
  return tostring(n)
end

--- Status of a session as words: idle, busy, or the retry countdown.
function M.status_text(session_id)
  local status = state().status[session_id] or { type = 'idle' }
  if status.type == 'retry' then
    local wait = status.next and math.max(0, math.ceil((status.next - os.time() * 1000) / 1000)) or 0
    return ('retrying in %ds (attempt %d)'):format(wait, status.attempt or 0)
  end
  return status.type
end

-- The agent and model of the next prompt, for the winbar.
local function target_text(session_id)
  local agent, model = chat().target(session_id)
  if not agent and not model then
    return nil
  end
  return (((agent or '?') .. ' · ' .. (model or '?')):gsub('%%', '%%%%'))
end

--- The bar: title, status, tokens, cost and context use, then the agent and model of the next
--- prompt. Before a session shows: what the chat waits for, or that agent and model.
function M.text()
  -- The session of the window drawn: a side chat's (agentls.chats), else the main chat's.
  -- (While a bar is drawn, the current window is the one it belongs to.)
  local own = vim.b[vim.api.nvim_get_current_buf()].agentls_session
  local session_id = type(own) == 'string' and own or chat().session_id
  if not session_id then
    local running = client.get() ~= nil
    local target = running and target_text(nil)
    local status = chat().failed and ('no session: ' .. chat().failed:gsub('\n.*', ''):gsub('%%', '%%%%'))
      or target or (running and 'starting…' or 'not running (:Agentls starts it)')
    return ' agentls │ ' .. status
  end
  local session = state().sessions[session_id]
  -- The title first, then `%<`: at a narrow width the bar is cut after the title, not before it.
  local head = ' ' .. ((session and session.title or session_id):gsub('%%', '%%%%'))
  local waiting, asking = require('agentls.dialogs').waiting()
  if waiting and asking and asking ~= session_id then -- another session's: say whose
    local other = state().sessions[asking]
    waiting = ('%s of "%s"'):format(waiting, other and other.title or asking):gsub('%%', '%%%%')
  end
  if waiting then
    local key = config.options.keymaps.dialog
    head = head .. ' │ %#WarningMsg#⚠ ' .. waiting .. ' (' .. (key or ':AgentlsDialog') .. ')%*'
  end
  local items = { M.status_text(session_id) }
  local queued = #(state().queue[session_id] or {})
  if queued > 0 then
    table.insert(items, ('%d queued'):format(queued))
  end
  local last = state():last_assistant(session_id)
  if last and last.tokens then -- items that would read 0 are left out
    local t = last.tokens
    local used = (t.input or 0) + ((t.cache or {}).read or 0) + (t.output or 0)
    if used > 0 then
      table.insert(items, human(used) .. ' tokens')
    end
    local cost = state():cost(session_id)
    if cost > 0 then
      table.insert(items, ('$%.4f'):format(cost))
    end
    local limits = state().config and state().config.modelLimits or {}
    local limit = limits[(last.providerID or '') .. '/' .. (last.modelID or '')]
    local share = limit and (limit.context or 0) > 0 and math.floor(used * 100 / limit.context + 0.5) or 0
    if share > 0 then
      table.insert(items, ('%d%%%% context'):format(share))
    end
  end
  vim.list_extend(items, require('agentls.mode').winbar_items(session_id))
  local target = target_text(session_id)
  if target then
    table.insert(items, target)
  end
  return head .. ' │ %<' .. table.concat(items, ' │ ')
end

return M
