-- The chat's winbar: the session's title, a dialog waiting for an answer, its worktree (⎇ name, for a
-- worktree session), its status (idle, busy,
-- the retry countdown), who else shows it (other editors attached to the agent host), what runs in the background (sub-agents, shells), the tokens of the last step, the session's cost and context use (when not
-- zero), and the agent · model of the next prompt. A narrow window cuts the tokens, cost and model
-- first, then the title: the status and the mode stay. Before a session shows, what the chat waits
-- for (or why it has none).
local client = require('agentls.server.client')
local config = require('agentls.config')

local M = {}

local SEP = ' │ '
local MIN_TITLE = 12 -- columns the title keeps however narrow the window
-- The title the server gives a session until the model names it: "New session - <ISO time>".
local DEFAULT_TITLE = '^New session %- %d%d%d%d%-%d%d%-%d%dT'

local function escape(text)
  return (text:gsub('%%', '%%%%'))
end

-- The width of the window whose bar is drawn.
local function width()
  local win = vim.g.statusline_winid
  return vim.api.nvim_win_get_width((win and win ~= 0 and vim.api.nvim_win_is_valid(win)) and win or 0)
end

-- `text` in at most `room` display columns, ending in `…` when cut.
local function cut(text, room)
  if vim.fn.strdisplaywidth(text) <= room then
    return text
  end
  local n = vim.fn.strchars(text)
  local out = text
  while n > 0 and vim.fn.strdisplaywidth(out) > room - 1 do
    n = n - 1
    out = vim.fn.strcharpart(text, 0, n)
  end
  return out .. '…'
end

--- A session's title for the bar: the server's placeholder ("New session - <time>") as "New session".
function M.title(title)
  return title:match(DEFAULT_TITLE) and 'New session' or title
end

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
  return (agent or '?') .. ' · ' .. (model or '?')
end

--- The last step's tokens, the session's cost and context use, each left out when it reads 0.
function M.usage(session_id)
  local items = {}
  local last = state():last_assistant(session_id)
  if not (last and last.tokens) then
    return items
  end
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
    table.insert(items, ('%d%% context'):format(share))
  end
  return items
end

--- The bar: title, status, tokens, cost and context use, then the agent and model of the next
--- prompt. Before a session shows: what the chat waits for, or that agent and model. `columns`: the
--- width to fit the title in (default: the window's whose bar is drawn).
function M.text(columns)
  -- The session of the window drawn: a side chat's (agentls.chat.tabs), else the main chat's.
  -- (While a bar is drawn, the current window is the one it belongs to.)
  local own = vim.b[vim.api.nvim_get_current_buf()].agentls_session
  local session_id = type(own) == 'string' and own or chat().session_id
  if not session_id then
    local running = client.get() ~= nil
    local target = running and target_text(nil)
    local status = chat().failed and ('no session: ' .. chat().failed:gsub('\n.*', ''))
      or target
      or (running and 'starting…' or 'not running (:Agentls starts it)')
    return ' agentls' .. SEP .. escape(status)
  end
  local session = state().sessions[session_id]
  -- What must stay in sight comes right after the title: a waiting dialog, the status (busy, idle,
  -- the retry), the queue and the mode. `%<` follows them, so a narrow window loses the tokens, the
  -- cost and the model first; the title gets the columns those leave (at least MIN_TITLE).
  local waiting, asking = require('agentls.dialogs').waiting()
  if waiting and asking and asking ~= session_id then -- another session's: say whose
    local other = state().sessions[asking]
    waiting = ('%s of "%s"'):format(waiting, other and other.title or asking)
  end
  local kept = { M.status_text(session_id) }
  local worktree = session and session.worktree
  if type(worktree) == 'table' then -- a worktree session: its name stays in sight
    table.insert(kept, 1, '⎇ ' .. worktree.name)
  end
  local queued = #(state().queue[session_id] or {})
  if queued > 0 then
    table.insert(kept, ('%d queued'):format(queued))
  end
  local watched = require('agentls.sessions.watchers').winbar_item(session_id)
  if watched then -- other front ends of the agent host show it too
    table.insert(kept, watched)
  end
  local background = require('agentls.sessions.background').winbar_item(session_id)
  if background then
    table.insert(kept, background)
  end
  local rest = M.usage(session_id)
  for _, item in ipairs(require('agentls.sessions.mode').winbar_items(session_id)) do
    table.insert(vim.startswith(item, 'mode ') and kept or rest, item)
  end
  local target = target_text(session_id)
  if target then
    table.insert(rest, target)
  end
  local warning = waiting and ('⚠ ' .. waiting .. ' (' .. (config.options.keymaps.dialog or ':AgentlsDialog') .. ')')
  local plain = table.concat(kept, SEP)
  local used = vim.fn.strdisplaywidth(' ' .. SEP .. plain .. SEP)
    + (warning and vim.fn.strdisplaywidth(warning .. SEP) or 0)
  local room = math.max(MIN_TITLE, (columns or width()) - used)
  local head = ' ' .. escape(cut(M.title(session and session.title or session_id), room))
  if warning then
    head = head .. SEP .. '%#AgentlsWarning#' .. escape(warning) .. '%*'
  end
  local tail = #rest > 0 and (SEP .. escape(table.concat(rest, SEP))) or ''
  return head .. SEP .. escape(plain) .. '%<' .. tail
end

return M
