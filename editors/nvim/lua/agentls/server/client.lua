-- The connection to `agentls serve`: one language client per Neovim, started on first use.
--
-- It announces the agent protocol (`experimental.agent` with `savesEdits`) and versioned document
-- changes, sends the plugin's `config` as the `agentls.config` settings (again when setup() changes
-- it: the running server applies it from the next prompt on), attaches the project's file buffers
-- (so the agent reads unsaved text), turns every `agent/event` into a state change, and applies
-- `workspace/applyEdit` through `agentls.server.edits`; the agent's questions to the other language
-- servers (`agent/editorQuery`) go to `agentls.server.editor_queries`.
-- Requests made before the server is initialised wait for it.
local config = require('agentls.config')

local M = {}

M.id = nil ---@type integer|nil
M.ready = false
M.queue = {} -- functions to run once the server is initialised
M.event_handlers = {} -- fn(event) called for every agent/event, after the state has it
M.server_info = nil

-- Client methods take `self` from 0.11 on; 0.10's are plain functions.
local HAS_011 = vim.fn.has('nvim-0.11') == 1
local function call(client, name, ...)
  if HAS_011 then
    return client[name](client, ...)
  end
  return client[name](...)
end

local function state()
  return require('agentls').state
end

--- The client capabilities: Neovim's, with workspace edits and the agent protocol (`experimental.agent`).
function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace = caps.workspace or {}
  caps.workspace.applyEdit = true
  caps.workspace.workspaceEdit = vim.tbl_extend('force', caps.workspace.workspaceEdit or {}, {
    documentChanges = true,
    resourceOperations = { 'create', 'rename', 'delete' },
  })
  local agent = { version = 1, savesEdits = true }
  if config.options.editor_queries ~= false then
    agent.editorQueries = require('agentls.server.editor_queries').QUERIES
  end
  caps.experimental = { agent = agent }
  return caps
end

local function on_event(_, event)
  state():apply(event)
  for _, fn in ipairs(M.event_handlers) do
    local ok, err = pcall(fn, event)
    if not ok then
      vim.notify('agentls: ' .. tostring(err), vim.log.levels.ERROR)
    end
  end
end

--- The running client, or nil.
function M.get()
  return M.id and vim.lsp.get_client_by_id(M.id) or nil
end

--- The settings the server reads (`workspace/didChangeConfiguration`): the `config` option as
--- `agentls.config`, the highest config layer.
function M.settings()
  local cfg = config.options.config
  return cfg and { agentls = { config = cfg } } or {}
end

--- Give the running server the `config` option if it changed (the server says `config.updated`).
function M.push_settings()
  local client = M.get()
  local settings = M.settings()
  if not client or vim.deep_equal(client.settings, settings) then
    return
  end
  client.settings = settings -- also what a workspace/configuration request reads
  if M.ready then
    -- No `config` any more: an empty layer replaces the old one.
    local sent = settings.agentls and settings or { agentls = { config = vim.empty_dict() } }
    call(client, 'notify', 'workspace/didChangeConfiguration', { settings = sent })
  end
end

--- Whether `buf` is a file of the project that the agent should see.
function M.is_project_file(buf)
  if vim.bo[buf].buftype ~= '' or not vim.api.nvim_buf_is_loaded(buf) then
    return false
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return false
  end
  local root, path = config.root(), vim.fs.normalize(name)
  return vim.startswith(path, root .. '/') or require('agentls.sessions.worktrees').holds(path)
end

--- Attach `buf` to the server (didOpen: the agent now reads its unsaved text).
function M.attach(buf)
  if M.id and config.options.attach_buffers and M.is_project_file(buf) then
    if not vim.lsp.buf_is_attached(buf, M.id) then
      vim.lsp.buf_attach_client(buf, M.id)
    end
  end
end

local function attach_all()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    M.attach(buf)
  end
end

-- Why the server cannot start, told once (every request would try again): one short line, with
-- where to look (a message wider than the command line would bring a hit-enter prompt).
local function say_once(reason, short)
  if M.said == reason then
    return
  end
  M.said = reason
  local room = vim.v.echospace
  local candidates = {
    ('agentls: %s; :checkhealth agentls'):format(reason),
    -- Long paths: their last two components, then the last one.
    ('agentls: %s; :checkhealth agentls'):format((reason:gsub('"/[^"]*/([^/"]+/[^/"]+)"', '"…/%1"'))),
    ('agentls: %s; :checkhealth agentls'):format((reason:gsub('"/[^"]*/([^/"]+)"', '"…/%1"'))),
    short and ('agentls: %s; :checkhealth agentls'):format(short) or nil,
    'agentls: the server cannot start; :checkhealth agentls',
  }
  candidates = vim.tbl_filter(function(c)
    return c ~= nil
  end, candidates)
  for _, msg in ipairs(candidates) do
    if vim.fn.strdisplaywidth(msg) < room or msg == candidates[#candidates] then
      return vim.notify(msg, vim.log.levels.ERROR)
    end
  end
end

-- Requests a restart must not send twice: a prompt would run again. The others are asked again
-- of the new server when the old one stopped before answering them.
local NOT_AGAIN = { ['agent/session/prompt'] = true, ['agent/session/command'] = true }

M.inflight = {} ---@type table<table, true>  requests sent and not answered: {client_id, method, again, fail}
-- The error a prompt or command gets when its server stopped before answering (it is not sent again).
M.STOPPED = -32098

-- The server `client_id` stopped: what it left unanswered goes to the next one when it was asked
-- to stop (`again`); a prompt or command is never sent twice: it fails with M.STOPPED (the chat gives
-- its text back). Other answers of a server that died are lost (the chat reloads from the store).
local function left_unanswered(client_id, again)
  for entry in pairs(M.inflight) do
    if entry.client_id == client_id then
      M.inflight[entry] = nil
      if NOT_AGAIN[entry.method] then
        entry.fail()
      elseif again then
        entry.again()
      end
    end
  end
end

--- Start the server (once); `on_ready` runs when it is initialised.
---@param on_ready fun()|nil
---@return boolean started, string|nil error
function M.start(on_ready)
  if M.id and M.get() then
    if on_ready then
      M.when_ready(on_ready)
    end
    return true
  end
  local cmd, reason, short = config.server_cmd()
  if not cmd then
    say_once(reason, short)
    return false, reason
  end
  -- (M.queue keeps what waits for a server: requests made while the last one stopped.)
  M.ready = false
  if on_ready then
    table.insert(M.queue, on_ready)
  end
  local root = config.root()
  local cfg = {
    name = 'agentls',
    cmd = cmd,
    -- host also goes in the server's environment: an attached server is then a small relay to a
    -- session in the host from its start (docs/host.md), not a whole server of its own.
    cmd_env = config.options.host and { AGENTLS_HOST = config.options.host } or nil,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fs.basename(root) } },
    capabilities = M.capabilities(),
    -- A project the user has not trusted (agentls.server.trust): the server ignores its own config,
    -- commands, agents and skills (docs/protocol.md).
    -- nextEdits: sent only when on (off, the server announces nothing for it and asks no model).
    init_options = {
      untrusted = not require('agentls.server.trust').trusted(root),
      nextEdits = config.options.next_edits or nil,
      -- host: sent only when set (unset, the server keeps its own default: AGENTLS_HOST, else never).
      host = config.options.host,
    },
    -- The config goes as settings, not initializationOptions: a later change then replaces it
    -- whole (Neovim sends them right after `initialized`, before the agent has loaded).
    settings = M.settings(),
    -- Agent edits wait for the didChange that follows them: keep it quick.
    flags = { debounce_text_changes = 50 },
    handlers = {
      ['agent/event'] = on_event,
      ['workspace/applyEdit'] = require('agentls.server.edits').handler,
      ['agent/editorQuery'] = require('agentls.server.editor_queries').handler,
    },
    on_init = function(client, result)
      M.server_info = result.serverInfo
      M.ready = true
      vim.schedule(function()
        attach_all()
        local queue = M.queue
        M.queue = {}
        for _, fn in ipairs(queue) do
          fn(client)
        end
      end)
    end,
    on_exit = function(code, signal)
      local was, stopping = M.id, M.stopping
      M.id, M.ready, M.stopping = nil, false, false
      vim.schedule(function()
        left_unanswered(was, stopping)
        -- Not asked for, and not Neovim quitting: the server died (a crash, a kill, out of memory).
        local died = was ~= nil and not stopping and vim.v.exiting == vim.NIL and (code ~= 0 or signal ~= 0)
        require('agentls').on_server_exit(died and { code = code, signal = signal } or nil)
      end)
    end,
  }
  -- Neovim raises when it cannot spawn the command: said once, like a missing one.
  local ok, id = pcall(HAS_011 and vim.lsp.start or vim.lsp.start_client, cfg, HAS_011 and { attach = false } or nil)
  if not ok or not id then
    reason = ('could not start %s%s'):format(cmd[1], ok and '' or (': ' .. tostring(id):gsub('\n.*', '')))
    say_once(reason)
    return false, reason
  end
  M.said = nil
  M.id = id
  return true
end

--- Run `fn(client)` once the server is initialised.
function M.when_ready(fn)
  if M.ready and M.get() then
    fn(M.get())
  else
    table.insert(M.queue, fn)
  end
end

--- Send a request; `cb(err, result)` runs on the main loop. Returns a function that cancels it.
--- A request made while the server restarts waits for the new one; one the old server had not
--- answered when it was asked to stop is sent again to the new one (not a prompt).
function M.request(method, params, cb)
  local request_id, client_ref
  local cancelled = false
  local entry = { method = method }
  local function send(client)
    if cancelled then
      return
    end
    client_ref = client
    -- An empty Lua table would go out as a JSON list; the server wants an object.
    if params == nil or next(params) == nil then
      params = vim.empty_dict()
    end
    local ok, id = call(client, 'request', method, params, function(err, result)
      M.inflight[entry] = nil
      if cb then
        cb(err, result)
      end
    end)
    if ok then
      request_id, entry.client_id = id, client.id
      M.inflight[entry] = true
    elseif cb then
      cb({ code = -32099, message = 'the agentls server is not running' }, nil)
    end
  end
  entry.again = function()
    M.when_ready(send)
  end
  entry.fail = function()
    if cb then
      cb({ code = M.STOPPED, message = 'the agentls server stopped before answering' }, nil)
    end
  end
  M.start()
  M.when_ready(send)
  return function()
    cancelled = true
    M.inflight[entry] = nil
    if client_ref and request_id then
      call(client_ref, 'cancel_request', request_id)
    end
  end
end

--- Send a notification to the server, when it runs and is ready (else it is dropped).
function M.notify(method, params)
  local client = M.get()
  if client and M.ready then
    call(client, 'notify', method, params)
  end
end

--- Stop the server (asked twice: without waiting for it to shut down). Requests made meanwhile
--- wait for the next server (one that has shut down refuses them).
function M.stop()
  local client = M.get()
  if client then
    local force = M.stopping
    M.stopping, M.ready = true, false
    call(client, 'stop', force)
  end
end

return M
