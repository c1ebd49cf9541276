-- Who else shows a session, and who answered a dialog elsewhere (attached to an agent host,
-- docs/host.md). The sessions this Neovim's chat windows show go to the server
-- (`agent/session/show`, again whenever a window shows another or closes); the server's
-- `session.watchers` says which other front ends show each one, and the chat's winbar says
-- "also open in VS Code". A dialog another front end answered closes here with a notice naming it.
local client = require('agentls.server.client')

local M = {}

M.others = {} ---@type table<string, string[]> session id → the other front ends showing it
local sent = nil ---@type string|nil what the server was told last (nil: nothing yet)
local pending = false

-- The sessions shown in a window now (the chat's and side chats' transcripts), sorted.
local function shown()
  local seen, list = {}, {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    local sid = vim.b[vim.api.nvim_win_get_buf(win)].agentls_session
    if type(sid) == 'string' and not seen[sid] then
      seen[sid] = true
      table.insert(list, sid)
    end
  end
  table.sort(list)
  return list
end

--- Tell the server which sessions the windows show, when that changed (once per loop turn).
function M.update()
  if pending then
    return
  end
  pending = true
  vim.schedule(function()
    pending = false
    if not (client.get() and client.ready) then
      return
    end
    local list = shown()
    local key = table.concat(list, ' ')
    if key ~= sent then
      sent = key
      client.notify('agent/session/show', { sessionIDs = list })
    end
  end)
end

--- A new server process was told nothing yet.
function M.reset()
  sent, M.others = nil, {}
  M.update()
end

--- "Neovim, Zed"; one name twice or more: "Neovim ×2".
function M.names(clients)
  local counts, order = {}, {}
  for _, name in ipairs(clients) do
    if not counts[name] then
      table.insert(order, name)
    end
    counts[name] = (counts[name] or 0) + 1
  end
  local out = {}
  for _, name in ipairs(order) do
    table.insert(out, counts[name] > 1 and ('%s ×%d'):format(name, counts[name]) or name)
  end
  return table.concat(out, ', ')
end

--- The winbar's item for a session: "also open in VS Code, Zed", or nil when no one else shows it.
function M.winbar_item(session_id)
  local clients = M.others[session_id]
  if not clients or #clients == 0 then
    return nil
  end
  return 'also open in ' .. M.names(clients)
end

local CLOSED = {
  ['permission.replied'] = 'answered',
  ['question.replied'] = 'answered',
  ['question.rejected'] = 'dismissed',
  ['plan.review.replied'] = 'answered',
}

---@param event agentls.AgentEvent
function M.on_event(event)
  local p = event.properties or {}
  if event.type == 'session.watchers' then
    M.others[p.sessionID] = p.clients
    vim.cmd('redrawstatus!')
  elseif CLOSED[event.type] and p.by then
    -- Another front end answered it: the dialog closed under the user (dialogs.lua closes it).
    vim.notify(('agentls: the dialog was %s in %s'):format(CLOSED[event.type], p.by), vim.log.levels.INFO)
  end
end

--- Follow the windows: a chat window that shows another session, opens or closes.
function M.setup()
  local group = vim.api.nvim_create_augroup('agentls_watchers', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufWinEnter', 'BufWinLeave', 'WinClosed', 'TabClosed' }, {
    group = group,
    callback = M.update,
  })
end

return M
