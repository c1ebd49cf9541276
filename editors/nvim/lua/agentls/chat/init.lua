-- The chat: a transcript buffer per session (`agentls://<session>`, markdown, read-only) above a
-- prompt buffer shared by all sessions (so a draft survives switching), in a split or a float.
local client = require('agentls.server.client')
local commands = require('agentls.chat.commands')
local config = require('agentls.config')
local files = require('agentls.context.files')
local render = require('agentls.chat.render')

local M = {}

M.session_id = nil ---@type string|nil
-- The user's picks (:AgentlsAgent, :AgentlsModel); nil: what the server gives the session (its last
-- agent and model, else the defaults of the settings, which the plugin follows as they change).
M.agent = nil ---@type string|nil
M.model = nil ---@type string|nil
M.buffers = {} ---@type table<string, integer>  transcript buffer by session
M.views = {} ---@type table<string, table>
M.loaded = {} ---@type table<string, boolean>
M.running = {} ---@type table<string, table<integer, fun()>>  cancel functions of pending prompt requests
M.win, M.prompt_win, M.prompt_buf = nil, nil, nil
M.opening = false -- a session is being chosen or created for the chat (the windows may be open already)
M.fetching_config = false -- an agent/config request is on its way
M.failed = nil ---@type string|nil  why the chat has no session (the server's error)

local function state()
  return require('agentls').state
end

local function valid_win(win)
  return win and vim.api.nvim_win_is_valid(win)
end

-- --- buffers -------------------------------------------------------------------------------

local function set_keymaps(buf, is_prompt)
  local keys = config.options.keymaps
  -- The session of a transcript or of a side chat's prompt (agentls.chat.tabs); the main prompt's is the chat's.
  local function session()
    local sid = vim.b[buf].agentls_session
    return type(sid) == 'string' and sid or M.session_id
  end
  local function map(mode, lhs, fn, desc)
    if lhs then
      vim.keymap.set(mode, lhs, fn, { buffer = buf, desc = 'agentls: ' .. desc, nowait = true })
    end
  end
  if is_prompt then
    map('n', keys.send_normal, function()
      M.send()
    end, 'send the prompt')
    map('i', keys.send_insert, function()
      vim.cmd('stopinsert')
      M.send()
    end, 'send the prompt')
    map('n', keys.steer, function()
      M.send(nil, 'steer')
    end, 'send into the running turn')
    map('n', keys.stop_send, function()
      M.send(nil, 'interrupt')
    end, 'stop the turn and send')
  end
  map('n', keys.queue, function()
    M.queue_menu(session())
  end, 'edit or remove a queued prompt')
  map('n', keys.abort, function()
    M.abort(session())
  end, 'abort the turn')
  map('n', keys.close, function()
    local win = vim.api.nvim_get_current_win()
    if win ~= M.win and win ~= M.prompt_win and #vim.api.nvim_list_tabpages() > 1 then
      return vim.cmd('tabclose') -- a side chat's tab (agentls.chat.tabs)
    end
    M.close()
  end, 'close the chat')
  map('n', keys.new, function()
    M.new_session()
  end, 'new session')
  map('n', keys.sessions, function()
    require('agentls.sessions').pick()
  end, 'sessions')
  map('n', keys.dialog, function()
    require('agentls.dialogs').open(session())
  end, 'open the dialog that waits for an answer')
  if not is_prompt then
    map('n', keys.load_older, function()
      require('agentls.chat.history').load_older(vim.b[buf].agentls_session)
    end, 'load older messages')
  end
end

M.set_keymaps = set_keymaps

--- Make `buf` a markdown buffer in coming turns of the loop, then call `after` (agentls.chat.markdown).
function M.markdown(buf, after)
  require('agentls.chat.markdown').queue(buf, after)
end

--- The transcript buffer of a session (created with its view on first use).
function M.transcript(session_id)
  local buf = M.buffers[session_id]
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
  buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].undolevels = -1 -- the transcript is rebuilt from the server, never undone
  vim.api.nvim_buf_set_name(buf, 'agentls://' .. session_id)
  vim.b[buf].agentls_session = session_id
  M.markdown(buf, function()
    -- Vim's markdown syntax re-reads 50 lines above the window on each draw (long lines here): its
    -- first draw of a long transcript took ~0.25 s. Blocks are separated by blank lines: sync there.
    vim.api.nvim_buf_call(buf, function()
      vim.cmd('silent! syntax sync clear | silent! syntax sync minlines=1 maxlines=20')
    end)
  end)
  M.buffers[session_id] = buf
  M.views[session_id] = render.new(state(), session_id, buf, { coalesce_ms = config.options.coalesce_ms })
  set_keymaps(buf, false)
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    once = true,
    callback = function()
      if M.views[session_id] then
        M.views[session_id]:destroy()
      end
      M.views[session_id], M.buffers[session_id], M.loaded[session_id] = nil, nil, nil
    end,
  })
  return buf
end

-- What the transcript window shows until a session is: an empty buffer (the winbar says what is
-- going on), so the chat opens at once and the prompt can be written while the server starts.
local function placeholder()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  pcall(vim.api.nvim_buf_set_name, buf, 'agentls://starting')
  set_keymaps(buf, false)
  return buf
end

local function prompt_buffer()
  if M.prompt_buf and vim.api.nvim_buf_is_valid(M.prompt_buf) then
    return M.prompt_buf
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_name(buf, 'agentls://prompt')
  M.markdown(buf)
  files.completion(buf)
  commands.completion(buf)
  require('agentls.context.items').attach(buf)
  set_keymaps(buf, true)
  M.prompt_buf = buf
  return buf
end

-- --- windows -------------------------------------------------------------------------------

local function size(fraction, total)
  return fraction < 1 and math.floor(total * fraction) or math.floor(fraction)
end

--- Set the window options of a transcript window `win`: wrapped, folded by block, the chat's winbar.
function M.style_transcript(win)
  local wo = vim.wo[win]
  wo.wrap, wo.linebreak = true, true
  wo.number, wo.relativenumber, wo.signcolumn = false, false, 'no'
  wo.foldmethod = 'expr'
  wo.foldexpr = "v:lua.require'agentls.chat.render'.foldexpr(v:lnum)"
  wo.foldlevel = 0
  wo.foldminlines = 0 -- a one-line tool output folds too
  wo.foldenable = true
  wo.winbar = "%{%v:lua.require'agentls.chat.winbar'.text()%}"
end

local function open_windows(buf)
  local prompt = prompt_buffer()
  if config.options.layout == 'float' then
    local width = size(config.options.width, vim.o.columns)
    local height = size(config.options.height, vim.o.lines)
    local row, col = math.floor((vim.o.lines - height) / 2), math.floor((vim.o.columns - width) / 2)
    local ph = config.options.prompt_height
    M.win = vim.api.nvim_open_win(buf, false, {
      relative = 'editor',
      row = row,
      col = col,
      width = width,
      height = height - ph - 2,
      border = 'rounded',
      title = ' agentls ',
      style = 'minimal',
    })
    M.prompt_win = vim.api.nvim_open_win(prompt, true, {
      relative = 'editor',
      row = row + height - ph,
      col = col,
      width = width,
      height = ph,
      border = 'rounded',
      title = ' prompt ',
      style = 'minimal',
    })
  else
    vim.cmd('botright vsplit')
    M.win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_width(M.win, size(config.options.width, vim.o.columns))
    vim.api.nvim_win_set_buf(M.win, buf)
    vim.cmd('belowright split')
    M.prompt_win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(M.prompt_win, prompt)
    vim.api.nvim_win_set_height(M.prompt_win, config.options.prompt_height)
    vim.wo[M.prompt_win].winfixheight = true
  end
  M.style_transcript(M.win)
  vim.wo[M.prompt_win].wrap = true
end

--- Grow (or shrink back) the prompt window to show its text and the chips below it: from
--- `prompt_height` up to half the chat's height.
function M.fit_prompt()
  local win = M.prompt_win
  if not valid_win(win) or vim.fn.has('nvim-0.10') == 0 then
    return
  end
  local want = vim.api.nvim_win_text_height(win, {}).all
  local room = valid_win(M.win)
      and math.floor((vim.api.nvim_win_get_height(M.win) + vim.api.nvim_win_get_height(win)) / 2)
    or config.options.prompt_height
  local height = math.max(config.options.prompt_height, math.min(want, room))
  if height == vim.api.nvim_win_get_height(win) then
    return
  end
  if vim.api.nvim_win_get_config(win).relative ~= '' then
    return -- a float keeps the size its layout gave it (the transcript's float sits above it)
  end
  vim.api.nvim_win_set_height(win, height)
end

--- Show `session_id` in the chat (opening the windows if needed) and load its transcript.
---@param session_id string
---@param messages? table[] its last messages, when the server sent them already ({info, parts}[])
function M.show(session_id, messages)
  M.session_id, M.opening, M.failed = session_id, false, nil
  local buf = M.transcript(session_id)
  if valid_win(M.win) then
    vim.api.nvim_win_set_buf(M.win, buf)
    M.style_transcript(M.win)
  else
    open_windows(buf)
  end
  if valid_win(M.prompt_win) then
    vim.api.nvim_set_current_win(M.prompt_win)
  end
  if not M.loaded[session_id] then
    M.load(session_id, nil, messages)
  end
  require('agentls.sessions.mode').fetch(session_id) -- its mode and effort, for the winbar
  render.follow(M.win, buf)
  local after = M.after_show
  M.after_show = nil
  if after then
    after()
  end
end

--- Fetch a session, its messages and todos from the server into the state.
---@param session_id string
---@param done? fun() called once all three are in
---@param messages? table[] its last messages, when the server sent them already (not fetched again)
function M.load(session_id, done, messages)
  M.loaded[session_id] = true
  require('agentls.review.signs').load(session_id) -- its pending changes, signed in their buffers
  local remaining = 3
  local function step()
    remaining = remaining - 1
    if remaining == 0 and done then
      done()
    end
  end
  client.request('agent/session/get', { sessionID = session_id }, function(err, session)
    if not err and session then
      state().sessions[session_id] = session
      state():emit('session', session_id, session)
    end
    step()
  end)
  local history = require('agentls.chat.history') -- the last `last_messages`; older ones on request
  local function loaded(page)
    history.loaded(session_id, page)
    state():load(session_id, page)
    history.more(session_id) -- (every message wanted: the older pages follow)
  end
  if messages then
    loaded(messages)
    step()
  else
    client.request('agent/session/messages', history.first_page(session_id), function(err, result)
      if err then
        vim.notify('agentls: ' .. err.message, vim.log.levels.ERROR)
      else
        loaded(result.messages or {})
      end
      step()
    end)
  end
  client.request('agent/session/todo', { sessionID = session_id }, function(err, result)
    if not err and result then
      state().todos[session_id] = result.todos
      state():emit('todos', session_id, result.todos)
    end
    step()
  end)
end

--- Open the chat: the current session, else the newest one (`resume`), else a new one. The windows
--- open at once; the session shows when the server has answered.
---@param opts? {session_id?: string}
function M.open(opts)
  opts = opts or {}
  client.said = nil -- the user asked: if the server cannot start, say it again
  if not client.start() then
    return
  end
  M.fetch_config()
  if opts.session_id then
    return M.show(opts.session_id)
  end
  if M.session_id then
    if valid_win(M.win) then
      return vim.api.nvim_set_current_win(M.prompt_win or M.win)
    end
    return M.show(M.session_id)
  end
  if valid_win(M.win) then
    vim.api.nvim_set_current_win(M.prompt_win or M.win)
  else
    open_windows(placeholder())
  end
  if M.opening then
    return -- already on its way
  end
  if not config.options.resume then
    return M.new_session()
  end
  M.opening = true
  -- The newest session and its last messages in one request (a server that does not know
  -- `messages` leaves them out: then they are fetched as for any session).
  local params = { limit = 1, messages = require('agentls.chat.history').page() }
  client.request('agent/session/list', params, function(err, result)
    local newest = not err and result and result.sessions and result.sessions[1]
    if newest then
      state().sessions[newest.id] = newest
      M.show(newest.id, result.messages)
    else
      M.new_session()
    end
  end)
end

--- Ask the server for its agents, models and defaults (once per connection; then its events say).
function M.fetch_config()
  if state().config or M.fetching_config then
    return
  end
  M.fetching_config = true
  client.request('agent/config', {}, function(err, result)
    M.fetching_config = false
    if not err and result then
      state():set_config(result)
    end
  end)
end

--- The agent and model the next prompt of `session_id` runs with: the user's picks, else the
--- server's (the session's last ones, else the defaults of the settings).
---@return string|nil agent, string|nil model
function M.target(session_id)
  local agent, model = state():defaults(session_id)
  return M.agent or agent, M.model or model
end

--- The server's config changed (new settings): a pick it no longer offers goes back to the default.
function M.on_config(cfg)
  local agents = {}
  for _, a in ipairs(cfg.agents or {}) do
    if a.mode ~= 'subagent' then
      agents[a.name] = true
    end
  end
  local dropped = {}
  if M.agent and not agents[M.agent] then
    table.insert(dropped, 'agent ' .. M.agent)
    M.agent = nil
  end
  if M.model and not vim.tbl_contains(cfg.models or {}, M.model) then
    table.insert(dropped, 'model ' .. M.model)
    M.model = nil
  end
  if #dropped > 0 then
    local agent, model = M.target(M.session_id)
    vim.notify(
      ('agentls: the settings no longer offer the %s: the next prompts use %s · %s'):format(
        table.concat(dropped, ' and the '),
        agent or '?',
        model or '?'
      ),
      vim.log.levels.WARN
    )
  end
  pcall(vim.cmd, 'redrawstatus!')
end

--- Close the chat's windows (the transcript and the prompt), unless one is the last window.
function M.close()
  for _, win in ipairs({ M.prompt_win, M.win }) do
    if valid_win(win) and #vim.api.nvim_list_wins() > 1 then
      vim.api.nvim_win_close(win, true)
    end
  end
  M.win, M.prompt_win = nil, nil
end

--- A session was deleted (here or by another client): the chat moves to the newest remaining one,
--- and the transcript buffer goes once no window shows it.
function M.forget(session_id)
  local buf = M.buffers[session_id]
  M.loaded[session_id] = nil
  if M.session_id == session_id then
    M.session_id = nil
    if valid_win(M.win) then
      M.open()
    end
  end
  if not buf or not vim.api.nvim_buf_is_valid(buf) or vim.b[buf].agentls_forgotten then
    return
  end
  vim.b[buf].agentls_forgotten = true
  local function wipe()
    if vim.api.nvim_buf_is_valid(buf) then
      vim.api.nvim_buf_delete(buf, { force = true })
    end
  end
  if #vim.fn.win_findbuf(buf) == 0 then
    wipe()
  else
    vim.api.nvim_create_autocmd('BufWinLeave', {
      buffer = buf,
      once = true,
      callback = function()
        vim.schedule(wipe)
      end,
    })
  end
end

--- Start a new session and show it; `worktree`: in a new git worktree by that name ('': a name from
--- the time; nil: in the checkout).
function M.new_session(title, worktree)
  M.opening = true
  local params = { title = title, agent = M.agent, model = M.model, worktree = worktree }
  client.request('agent/session/create', params, function(err, session)
    if err then
      M.opening = false
      M.failed = err.message -- the winbar of the empty chat says it (e.g. a config the agent rejects)
      return vim.notify('agentls: ' .. err.message, vim.log.levels.ERROR)
    end
    state().sessions[session.id] = session
    require('agentls.sessions.worktrees').seen(session)
    state():load(session.id, {})
    M.loaded[session.id] = true
    M.show(session.id)
  end)
end

-- --- prompting -----------------------------------------------------------------------------

--- Send `text` (default: the prompt buffer's text) to the current session. While it works, `mode`
--- says what the prompt does: 'queue' (the default: its own turn when the running one ends),
--- 'steer' (into the running turn) or 'interrupt' (stop the turn and send).
function M.send(text, mode, opts)
  -- opts: {session_id, prompt_buf} of a side chat (agentls.chat.tabs); else the main chat's.
  opts = opts or {}
  local session_id = opts.session_id or M.session_id
  if not session_id then
    if M.opening then -- the chat is opening: the prompt goes to its session once it shows
      return M.with_session(function()
        M.send(text, mode)
      end)
    end
    return vim.notify('agentls: open the chat first (:Agentls)', vim.log.levels.WARN)
  end
  local from_buffer = text == nil
  if from_buffer then
    text = table.concat(vim.api.nvim_buf_get_lines(opts.prompt_buf or prompt_buffer(), 0, -1, false), '\n')
  end
  if vim.trim(text) == '' then
    return
  end
  local chips = require('agentls.context.chips')
  if chips.resolving(text) then -- a chip's fetch is on its way (maybe asking): the prompt takes its answer
    return chips.after_resolving(function()
      M.send(not from_buffer and text or nil, mode, opts)
    end)
  end
  local failed = chips.failed(text)
  if failed then -- sent, the server would fetch (and ask) again: the prompt stays for the user to fix
    return require('agentls.ui.notify').say('agentls: not sent: ' .. failed, vim.log.levels.WARN)
  end
  local command, arguments = commands.parse(text)
  local parts = { { type = 'text', text = text } }
  vim.list_extend(parts, files.parts(text))
  vim.list_extend(parts, require('agentls.context.items').parts(text))
  if from_buffer then
    vim.api.nvim_buf_set_lines(opts.prompt_buf or prompt_buffer(), 0, -1, false, {})
  end
  -- The model only when picked, or when the session's own was taken out of the settings.
  local _, model, explicit = state():defaults(session_id)
  model = M.model or (explicit and model or nil)
  local params = { sessionID = session_id, parts = parts, agent = M.agent, model = model, mode = mode or 'queue' }
  local method = 'agent/session/prompt'
  if command then -- `/name args`: the server expands it (its @files included) and runs it
    method = 'agent/session/command'
    params = { sessionID = session_id, command = command, arguments = arguments, agent = M.agent, model = model }
  end
  local pending = M.running[session_id] or {}
  M.running[session_id] = pending
  local key = #pending + 1
  while pending[key] do
    key = key + 1
  end
  pending[key] = client.request(method, params, function(err, result)
    if M.running[session_id] == pending then
      pending[key] = nil
      if next(pending) == nil then
        M.running[session_id] = nil
      end
    end
    if err then
      -- -32016: the user took it out of the queue (-32800 is dropped by Neovim's client itself).
      if err.code ~= -32800 and err.code ~= -32016 then
        if err.code ~= client.STOPPED then -- (the restart is said once, by agentls.on_server_exit)
          vim.notify('agentls: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        end
        -- Give the text back, unless the user already typed something new (or the server that
        -- stopped had stored it: the transcript shows it).
        local prompt = opts.prompt_buf or prompt_buffer()
        local kept = err.code == client.STOPPED and M.stored(session_id, text)
        if
          from_buffer
          and not kept
          and vim.trim(table.concat(vim.api.nvim_buf_get_lines(prompt, 0, -1, false))) == ''
        then
          vim.api.nvim_buf_set_lines(prompt, 0, -1, false, vim.split(text, '\n', { plain = true }))
        end
      end
      return
    end
    if command then
      local said = commands.describe(command, result)
      if said then
        vim.notify(said, vim.log.levels.INFO)
      end
      result = type(result.message) == 'table' and result.message or {}
    end
    if result.info then
      state():set_message(result.info)
    end
    for _, part in ipairs(result.parts or {}) do
      state():set_part(part)
    end
  end)
end

--- Whether the newest user message of `session_id` holds `text` (the server stored the prompt).
function M.stored(session_id, text)
  local info = state():last_user(session_id)
  local message = info and state().transcripts[session_id].messages[info.id]
  for _, part in ipairs(message and message.parts or {}) do
    if part.type == 'text' and part.text == text then
      return true
    end
  end
  return false
end

--- The current session's queued prompts: pick one, then edit it (vim.ui.input) or remove it.
---@param session_id? string (default: the chat's session)
function M.queue_menu(session_id)
  session_id = session_id or M.session_id
  local items = session_id and state().queue[session_id] or {}
  if #items == 0 then
    return vim.notify('agentls: no prompt is queued', vim.log.levels.INFO)
  end
  local function text_of(item)
    local texts = {}
    for _, part in ipairs(item.parts or {}) do
      if part.type == 'text' then
        table.insert(texts, part.text)
      end
    end
    return table.concat(texts, ' ')
  end
  require('agentls.ui.picker').select(items, {
    prompt = 'Queued prompts (next first)',
    kind = 'agentls.queue',
    format_item = function(item)
      return (text_of(item):gsub('\n', ' '))
    end,
    preview = function(item, show)
      show(vim.split(text_of(item), '\n', { plain = true }))
    end,
  }, function(item)
    if not item then
      return
    end
    local ask = { prompt = 'Queued prompt', kind = 'agentls.queue_action', format_item = tostring }
    vim.ui.select({ 'Edit', 'Remove' }, ask, function(action)
      if action == 'Remove' then
        M.remove_queued(session_id, item.id)
      elseif action == 'Edit' then
        vim.ui.input({ prompt = 'Queued prompt: ', default = text_of(item) }, function(text)
          if text and vim.trim(text) ~= '' then
            M.edit_queued(session_id, item.id, text)
          end
        end)
      end
    end)
  end)
end

local function report(err)
  if err then
    vim.notify('agentls: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
  end
end

--- Replace a queued prompt's text (its file references are read again from the new text).
function M.edit_queued(session_id, queue_id, text)
  local parts = { { type = 'text', text = text } }
  vim.list_extend(parts, files.parts(text))
  client.request('agent/session/queue/update', { sessionID = session_id, queueID = queue_id, parts = parts }, report)
end

--- Take a prompt out of the queue (its request then fails as cancelled: nothing is shown).
function M.remove_queued(session_id, queue_id)
  client.request('agent/session/queue/remove', { sessionID = session_id, queueID = queue_id }, report)
end

--- Abort the current session's turn.
function M.abort(session_id)
  session_id = session_id or M.session_id
  if session_id then
    client.request('agent/session/abort', { sessionID = session_id }, function(err)
      if err then
        vim.notify('agentls: ' .. err.message, vim.log.levels.ERROR)
      end
    end)
  end
end

--- Put a reference to lines `first`..`last` of `buf` in the prompt (and send `text` if given).
function M.ask(buf, first, last, text)
  local ref = files.reference(vim.api.nvim_buf_get_name(buf), first, last)
  local function go()
    if text and text ~= '' then
      M.send(ref .. ' ' .. text)
    else
      local prompt = prompt_buffer()
      local lines = vim.api.nvim_buf_get_lines(prompt, 0, -1, false)
      local at = (#lines == 1 and lines[1] == '') and 0 or #lines
      vim.api.nvim_buf_set_lines(prompt, at, -1, false, { ref .. ' ' })
    end
  end
  M.with_session(go)
end

--- Open the chat and run `fn` once a session shows in it.
function M.with_session(fn)
  if M.session_id then
    M.open()
    fn()
  else
    local before = M.after_show -- the session is being chosen or created
    M.after_show = before and function()
      before()
      fn()
    end or fn
    M.open()
  end
end

return M
