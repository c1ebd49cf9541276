-- Several chats side by side: `:AgentlsChat {session}` opens a session's chat in a tab of its own
-- (its transcript — the same buffer the main chat shows — above a prompt buffer bound to that
-- session), so sessions run at once, each with its own winbar (status, queue, waiting dialog).
-- A dialog of a session whose chat is not on screen waits with a notice, and :AgentlsDialog (or
-- `ga`) takes the user to that session's chat first.
local client = require('agentls.server.client')
local config = require('agentls.config')

local M = {}

M.prompts = {} ---@type table<string, integer>  the prompt buffer of each side chat, by session

local function chat()
  return require('agentls.chat')
end

local function state()
  return require('agentls').state
end

--- The session a buffer belongs to (a transcript or a prompt of a side chat), or nil.
function M.session_of(buf)
  local sid = vim.b[buf].agentls_session
  return type(sid) == 'string' and sid or nil
end

--- The sessions whose chat a window of the current tab shows (the main chat's prompt counts).
function M.on_screen()
  local out = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(win)
    local sid = M.session_of(buf)
    if not sid and buf == chat().prompt_buf then
      sid = chat().session_id
    end
    if sid then
      out[sid] = true
    end
  end
  return out
end

--- Whether the user looks at another session's chat, not at `session_id`'s.
function M.elsewhere(session_id)
  local shown = M.on_screen()
  return not shown[session_id] and next(shown) ~= nil
end

--- Go to a window showing `session_id`'s chat (its prompt, if there), in whichever tab; else open it.
function M.go(session_id)
  for _, tab in ipairs(vim.api.nvim_list_tabpages()) do
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
      local buf = vim.api.nvim_win_get_buf(win)
      if buf == M.prompts[session_id] or (buf == chat().prompt_buf and chat().session_id == session_id) then
        vim.api.nvim_set_current_tabpage(tab)
        return vim.api.nvim_set_current_win(win)
      end
    end
  end
  M.open(session_id)
end

local function prompt_buffer(session_id)
  local buf = M.prompts[session_id]
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
  buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_name(buf, 'agentls://prompt/' .. session_id)
  vim.bo[buf].filetype = 'markdown'
  vim.b[buf].agentls_session = session_id
  require('agentls.context.files').completion(buf)
  require('agentls.chat.commands').completion(buf)
  local keys = config.options.keymaps
  local function map(mode, lhs, how, desc)
    if lhs then
      vim.keymap.set(mode, lhs, function()
        if mode == 'i' then
          vim.cmd('stopinsert')
        end
        chat().send(nil, how, { session_id = session_id, prompt_buf = buf })
      end, { buffer = buf, desc = 'agentls: ' .. desc, nowait = true })
    end
  end
  map('n', keys.send_normal, nil, 'send the prompt')
  map('i', keys.send_insert, nil, 'send the prompt')
  map('n', keys.steer, 'steer', 'send into the running turn')
  map('n', keys.stop_send, 'interrupt', 'stop the turn and send')
  chat().set_keymaps(buf, false) -- abort, queue, dialog… of this session
  M.prompts[session_id] = buf
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    once = true,
    callback = function()
      M.prompts[session_id] = nil
    end,
  })
  return buf
end

--- Open `session_id`'s chat in a new tab (or go to the tab that has it).
function M.open(session_id)
  for _, tab in ipairs(vim.api.nvim_list_tabpages()) do
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
      if vim.api.nvim_win_get_buf(win) == M.prompts[session_id] then
        vim.api.nvim_set_current_tabpage(tab)
        return vim.api.nvim_set_current_win(win)
      end
    end
  end
  local transcript = chat().transcript(session_id)
  vim.cmd('tabnew')
  local scratch = vim.api.nvim_get_current_buf()
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, transcript)
  if vim.api.nvim_buf_is_valid(scratch) and scratch ~= transcript then
    pcall(vim.api.nvim_buf_delete, scratch, { force = true })
  end
  chat().style_transcript(win)
  vim.cmd('belowright split')
  local prompt_win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(prompt_win, prompt_buffer(session_id))
  vim.api.nvim_win_set_height(prompt_win, config.options.prompt_height)
  vim.wo[prompt_win].winfixheight = true
  vim.wo[prompt_win].wrap = true
  if not chat().loaded[session_id] then
    chat().load(session_id)
  end
  require('agentls.sessions.mode').fetch(session_id)
  require('agentls.chat.render').follow(win, transcript)
  vim.api.nvim_set_current_win(prompt_win)
  -- A dialog of this session that waited for the user to come here.
  vim.schedule(function()
    require('agentls.dialogs').offer(session_id)
  end)
end

--- :AgentlsChat [session|new]: a session's chat in a tab; `new`: a new session's; no argument: pick.
---@param arg? string a session id, or 'new'
function M.command(arg)
  client.said = nil
  if not client.start() then
    return
  end
  chat().fetch_config()
  if arg == 'new' then
    return client.request('agent/session/create', {}, function(err, session)
      if err then
        return vim.notify('agentls: ' .. err.message, vim.log.levels.ERROR)
      end
      state().sessions[session.id] = session
      state():load(session.id, {})
      chat().loaded[session.id] = true
      M.open(session.id)
    end)
  elseif arg and arg ~= '' then
    return client.request('agent/session/get', { sessionID = arg }, function(err, session)
      if err then
        return vim.notify('agentls: ' .. err.message, vim.log.levels.ERROR)
      end
      state().sessions[session.id] = session
      M.open(session.id)
    end)
  end
  client.request('agent/session/list', { limit = 100 }, function(err, result)
    if err then
      return vim.notify('agentls: ' .. err.message, vim.log.levels.ERROR)
    end
    local items = vim.list_extend({ { new = true } }, result.sessions or {})
    require('agentls.ui.picker').select(items, {
      prompt = 'agentls: open a chat beside',
      kind = 'agentls.session',
      format_item = function(s)
        return s.new and '  New session' or require('agentls.sessions').describe(s)
      end,
      preview = require('agentls.sessions').preview,
    }, function(s)
      if s then
        M.command(s.new and 'new' or s.id)
      end
    end)
  end)
end

--- Completion of :AgentlsChat: `new` and the known sessions' ids.
---@return string[]
function M.complete()
  local out = { 'new' }
  for id in pairs(state().sessions) do
    table.insert(out, id)
  end
  return out
end

return M
