-- agentls for Neovim: a chat with the agent, its dialogs and its edits, over `agentls serve`.
-- This module is the public API: setup(), the functions behind the user commands, and status().
local config = require('agentls.config')

local M = {}

M.state = require('agentls.state').new()

local retry_timer = nil

-- Redraw the winbar every second while a session waits to retry (the countdown moves).
local function follow_status()
  local retrying = false
  for _, status in pairs(M.state.status) do
    retrying = retrying or status.type == 'retry'
  end
  if retrying and not retry_timer then
    retry_timer = vim.uv.new_timer()
    retry_timer:start(
      1000,
      1000,
      vim.schedule_wrap(function()
        vim.cmd('redrawstatus!')
      end)
    )
  elseif not retrying and retry_timer then
    retry_timer:stop()
    retry_timer:close()
    retry_timer = nil
  end
  vim.cmd('redrawstatus!')
end

local subscribed = false
local function subscribe()
  if subscribed then
    return
  end
  subscribed = true
  local client = require('agentls.server.client')
  table.insert(client.event_handlers, require('agentls.dialogs').on_event)
  table.insert(client.event_handlers, require('agentls.review.signs').on_event)
  table.insert(client.event_handlers, require('agentls.ui.notify').on_event)
  table.insert(client.event_handlers, require('agentls.sessions.mode').on_event)
  table.insert(client.event_handlers, require('agentls.sessions.background').on_event)
  table.insert(client.event_handlers, require('agentls.review.plan').on_event)
  table.insert(client.event_handlers, require('agentls.sessions.watchers').on_event)
  require('agentls.sessions.watchers').setup()
  M.state:subscribe(function(kind, session_id, data)
    if kind == 'status' or kind == 'session' or kind == 'message' or kind == 'queue' then
      follow_status()
    elseif kind == 'config' then
      require('agentls.chat').on_config(data)
    elseif kind == 'deleted' then
      require('agentls.chat').forget(session_id)
    elseif kind == 'error' and data and not require('agentls.sessions.background').said(session_id, data) then
      vim.notify('agentls: ' .. (data.message or data.name or 'error'), vim.log.levels.ERROR)
    elseif kind == 'warning' and data then
      vim.notify('agentls: ' .. (data.message or 'warning'), vim.log.levels.WARN)
    end
  end)
end

--- Configure the plugin (see :h agentls-config).
function M.setup(opts)
  config.setup(opts)
  subscribe()
  -- Called again with another `config`: the running server gets it (and says config.updated).
  require('agentls.server.client').push_settings()
  local group = vim.api.nvim_create_augroup('agentls', { clear = true })
  require('agentls.ui.highlights').setup()
  require('agentls.review.signs').setup(group)
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufEnter' }, {
    group = group,
    callback = function(ev)
      require('agentls.server.client').attach(ev.buf)
    end,
  })
  if config.options.forward_diagnostics then
    vim.api.nvim_create_autocmd('DiagnosticChanged', {
      group = group,
      callback = function(ev)
        require('agentls.server.diagnostics').forward(ev.buf)
      end,
    })
  end
end

local function ensure_setup()
  if not subscribed then
    M.setup({})
  end
end

--- setup({}) unless the user called setup() already (for commands that open no chat).
M.setup_once = ensure_setup

--- Start the server (if needed) and show what waits for an answer.
-- Whether a session's turn runs (a restart would end it).
local function busy()
  for _, status in pairs(M.state.status) do
    if status.type ~= 'idle' then
      return true
    end
  end
  return false
end

-- A changed trust answer needs a new server: now, or once no turn runs (the dialog may have waited
-- for a pause in the user's typing while a prompt started).
local function restart_for_trust()
  if not busy() then
    return M.restart()
  end
  vim.notify("agentls: the server restarts with the project's answer once the turn ends", vim.log.levels.INFO)
  local unsubscribe
  unsubscribe = M.state:subscribe(function(kind)
    if kind == 'status' and not busy() then
      unsubscribe()
      vim.schedule(M.restart)
    end
  end)
end

local function start()
  ensure_setup()
  local client = require('agentls.server.client')
  local trust = require('agentls.server.trust')
  local fresh = not client.get()
  local started, why = client.start()
  if not started then
    -- The only server is the project's own: it runs once the user trusts the project.
    if why == config.UNTRUSTED_SERVER and trust.should_ask(config.root()) then
      trust.ask(config.root(), function()
        M.open()
      end)
    end
    return false
  end
  if fresh then
    client.when_ready(function()
      require('agentls.dialogs').resume()
      require('agentls.review.plan').resume()
      require('agentls.sessions.watchers').reset() -- what the windows show, to the new server
      -- Started without the project's own things: may it use them? (A restart applies the answer.)
      if trust.should_ask(config.root()) then
        trust.ask(config.root(), restart_for_trust)
      end
    end)
  end
  return true
end

--- Open the chat (:Agentls); `opts`: {session_id} to show, {insert = false} to stay in normal mode
--- whatever `start_in_insert` says.
function M.open(opts)
  if start() then
    local chat = require('agentls.chat')
    chat.open(opts)
    -- The windows open at once (the session shows later): keys typed right after :Agentls land in
    -- the prompt as text instead of being motions. (Insert mode starts once the command returns.)
    local win = vim.api.nvim_get_current_win()
    if
      config.options.start_in_insert
      and (opts or {}).insert ~= false
      and win == chat.prompt_win
      and vim.fn.mode() == 'n'
    then
      vim.cmd('startinsert!')
    end
  end
end

--- Start a new session and show it; `worktree` (a name, '' for one from the time): in a new git
--- worktree of the project (:AgentlsNew worktree[=NAME]).
---@param worktree? string
function M.new_session(worktree)
  if start() then
    local chat = require('agentls.chat')
    chat.fetch_config()
    chat.new_session(nil, worktree)
  end
end

--- Abort the chat's running turn (:AgentlsAbort).
function M.abort()
  require('agentls.chat').abort()
end

--- Ask about lines `first`..`last` of `buf` (the whole file when nil) in the chat (:AgentlsAsk).
function M.ask(buf, first, last, text)
  if start() then
    require('agentls.chat').ask(buf, first, last, text)
  end
end

--- Have the agent change lines `first`..`last` of `buf` in place as `prompt` says (:AgentlsEdit).
function M.edit(buf, first, last, prompt)
  if start() then
    require('agentls.sessions.inline_edit').run(buf, first, last, prompt)
  end
end

--- Send `prompt` (e.g. the Fix prompt) in the chat.
function M.fix(prompt)
  if start() then
    local chat = require('agentls.chat')
    chat.with_session(function()
      chat.send(prompt)
    end)
  end
end

-- Restarts after the server died: at most RESTARTS within RESTART_WINDOW_S, then the user decides.
local RESTARTS, RESTART_WINDOW_S = 3, 60
local restarts = {}

local restart_requested = false

-- Start the server again and bring the chat back: config, waiting dialogs, the shown session.
local function come_back()
  if start() then
    local chat = require('agentls.chat')
    chat.fetch_config()
    if chat.session_id then
      chat.load(chat.session_id) -- from the store: a turn that was running shows where it stopped
    end
  end
end

--- Ask whether the project may use its own config and server (:AgentlsTrust); a changed answer
--- restarts the server with it.
function M.trust()
  ensure_setup()
  require('agentls.server.trust').ask(config.root(), restart_for_trust, true)
end

--- Stop the server and start it again (:AgentlsRestart), e.g. after updating agentls.
function M.restart()
  local client = require('agentls.server.client')
  if not client.get() then
    return come_back()
  end
  restart_requested = true
  client.stop()
end

--- Called when the server process ends (`died`: {code, signal} when nobody asked it to stop). Views
--- keep their text. A server that died is started again (said once) and the chat reloads its session
--- from the store; one that keeps dying is left for the user to start again.
function M.on_server_exit(died)
  local chat = require('agentls.chat')
  chat.loaded = {}
  if not restart_requested then -- (a restart asks the new server what the old one left unanswered)
    chat.opening, chat.fetching_config = false, false -- requests of the old server get no answer
    require('agentls.context.chips').forget_inflight()
  end
  chat.running = {}
  M.state:disconnected()
  for sid in pairs(M.state.status) do
    M.state.status[sid] = { type = 'idle' }
  end
  require('agentls.dialogs').reset()
  pcall(vim.cmd, 'redrawstatus!')
  if restart_requested then
    restart_requested = false
    return come_back()
  end
  if not died then
    return
  end
  local now = os.time()
  restarts = vim.tbl_filter(function(t)
    return now - t < RESTART_WINDOW_S
  end, restarts)
  local how = ('exit code %d, signal %d'):format(died.code, died.signal)
  if #restarts >= RESTARTS then
    vim.notify(
      ('agentls: the server stopped again (%s), %d times in a minute: :Agentls starts it again' .. ' (its log: %s)'):format(
        how,
        #restarts + 1,
        tostring(config.options.log_file or 'the LSP log')
      ),
      vim.log.levels.ERROR
    )
    return
  end
  table.insert(restarts, now)
  vim.notify(('agentls: the server stopped (%s); restarting it'):format(how), vim.log.levels.WARN)
  come_back()
end

--- For a statusline: "" when the server is not running, else a dialog that waits for an answer,
--- or idle, busy or retrying.
function M.status()
  if not require('agentls.server.client').get() then
    return ''
  end
  local busy, retry = false, nil
  for sid, status in pairs(M.state.status) do
    if status.type == 'retry' then
      retry = require('agentls.chat.winbar').status_text(sid)
    elseif status.type == 'busy' then
      busy = true
    end
  end
  local waiting = require('agentls.dialogs').waiting()
  if waiting then -- the chat may be closed: the statusline still says a dialog waits
    return 'agentls: ' .. waiting .. ' waits (:AgentlsDialog)'
  end
  if retry then
    return 'agentls: ' .. retry
  end
  return busy and 'agentls: busy' or 'agentls: idle'
end

return M
