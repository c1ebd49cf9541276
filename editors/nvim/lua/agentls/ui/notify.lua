-- Telling the user that a turn ended or a dialog waits. Always: the autocmds `User AgentlsTurnDone`
-- and `User AgentlsDialog` (data: session_id, title, …), for users who want system notifications.
-- And, while no window of the current tab shows that session's chat, a short `vim.notify`.
local M = {}

local function state()
  return require('agentls').state
end

--- Whether a window of the current tab shows the chat of `session_id`.
function M.chat_visible(session_id)
  local buf = require('agentls.chat').buffers[session_id]
  if not buf or not vim.api.nvim_buf_is_valid(buf) then
    return false
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return true
    end
  end
  return false
end

local function title_of(session_id)
  local session = state().sessions[session_id]
  return session and session.title or session_id
end

--- Say `msg` in one line that fits the command line (a longer one would bring a hit-enter prompt,
--- which takes the next key the user types).
function M.say(msg, level)
  local room = math.max(20, vim.v.echospace - 1)
  if vim.fn.strdisplaywidth(msg) > room then
    msg = vim.fn.strcharpart(msg, 0, room - 1) .. '…'
  end
  vim.notify(msg, level)
end

local say = M.say

--- Say `msg` right after a dialog closed (Neovim's own select is inputlist(), which leaves the
--- message area scrolled: a message then brings a hit-enter prompt). The screen is redrawn first,
--- on the next turn of the loop.
function M.after_dialog(msg, level)
  vim.schedule(function()
    pcall(vim.cmd, 'redraw')
    say(msg, level)
  end)
end

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, data = data, modeline = false })
end

local function turn_done(session_id)
  local session = state().sessions[session_id] or {}
  local data = { session_id = session_id, title = title_of(session_id) }
  if session.parentID and session.parentID ~= vim.NIL then
    data.parent_id = session.parentID
  end
  fire('AgentlsTurnDone', data)
  if not data.parent_id and not M.chat_visible(session_id) then
    say(('agentls: "%s" is done'):format(data.title), vim.log.levels.INFO)
  end
end

local function dialog(kind, request)
  local session_id = require('agentls.dialogs').owner(request) -- a sub-agent's: its parent's chat
  local data = { session_id = session_id, title = title_of(session_id), kind = kind, request_id = request.id }
  if kind == 'permission' then
    data.permission = request.permission
  end
  fire('AgentlsDialog', data)
  if M.chat_visible(session_id) then
    return
  end
  -- After the dialog module had its turn: a dialog it showed is on screen already, one it
  -- announced (the user was typing) was said; one still waiting behind another is said here.
  vim.schedule(function()
    local dialogs = require('agentls.dialogs')
    for _, queued in ipairs(dialogs.queue) do
      if queued.request.id == request.id then
        local what = kind == 'permission' and ('permission: ' .. (request.permission or '?')) or 'a question'
        return say(('agentls: "%s" waits for you (%s): :AgentlsDialog'):format(data.title, what), vim.log.levels.WARN)
      end
    end
  end)
end

--- An `agent/event` (registered with the client).
function M.on_event(event)
  local p = event.properties or {}
  if event.type == 'session.idle' then
    turn_done(p.sessionID)
  elseif event.type == 'permission.asked' and p.request then
    dialog('permission', p.request)
  elseif event.type == 'question.asked' and p.request then
    dialog('question', p.request)
  end
end

return M
