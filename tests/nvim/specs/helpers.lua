-- Shared by the specs: setup from the harness's options, waiting on conditions, reading buffers.
local T = {}

T.options = vim.json.decode(os.getenv('AGENTLS_TEST_CONFIG'))
-- The specs drive a headless Neovim through the API and feedkeys, in normal mode; the prompt that
-- starts in insert mode after :Agentls is typed into in tmux (tests/nvim/test_first_minute.py).
T.options.start_in_insert = false

function T.setup(extra)
  require('agentls').setup(vim.tbl_extend('force', T.options, extra or {}))
end

--- Wait until `cond()` is truthy (polling the event loop), else fail naming `what`.
function T.wait(cond, what, ms)
  local ok = vim.wait(ms or 20000, function()
    return cond() and true or false
  end, 10)
  if not ok then
    error('timed out waiting for ' .. what, 2)
  end
end

function T.lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

function T.text(buf)
  return table.concat(T.lines(buf), '\n')
end

function T.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    error(('%s: expected %s, got %s'):format(what or 'value', vim.inspect(expected), vim.inspect(actual)), 2)
  end
end

function T.ok(value, what)
  if not value then
    error('expected ' .. what, 2)
  end
  return value
end

function T.chat()
  return require('agentls.chat')
end

--- `:Agentls`, then wait until the chat has its session and prompt window; returns the session id.
function T.open()
  vim.cmd('Agentls')
  T.wait(function()
    return T.chat().session_id and T.chat().prompt_win
  end, 'the chat to open')
  return T.chat().session_id
end

--- The chat's winbar text, its title whole (how a narrow window cuts it is tested in tmux).
function T.winbar()
  return require('agentls.chat.winbar').text(1000)
end

--- The transcript buffer of the chat's session.
function T.transcript()
  local chat = T.chat()
  return chat.session_id and chat.buffers[chat.session_id]
end

--- Type `text` in the prompt buffer and press the send key, as a user would.
function T.send(text)
  local chat = T.chat()
  vim.api.nvim_set_current_win(chat.prompt_win)
  vim.api.nvim_buf_set_lines(chat.prompt_buf, 0, -1, false, vim.split(text, '\n'))
  vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'mx', false)
end

--- Wait until no session is running.
function T.idle(session_id, ms)
  T.wait(function()
    local status = require('agentls').state.status[session_id]
    return status and status.type == 'idle' and not T.chat().running[session_id]
  end, 'the turn to end', ms)
end

--- Fail if :messages holds an error.
function T.no_errors()
  local messages = vim.fn.execute('messages')
  for line in messages:gmatch('[^\n]+') do
    if line:match('^E%d+') or line:match('Error') or line:match('W1[0-9]') then
      error('error in :messages: ' .. messages)
    end
  end
end

--- Wait until the server has answered every request the plugin sent.
function T.settled()
  local lsp = require('agentls.server.client').get()
  T.wait(function()
    for _, request in pairs(lsp and lsp.requests or {}) do
      if request.type == 'pending' then
        return false
      end
    end
    return true
  end, 'the answers to pending requests')
end

--- Done: stop the server and leave (after the answers to what was asked: a request still in
--- flight would be answered with an error by a server shutting down).
function T.finish()
  T.settled()
  T.no_errors()
  local client = require('agentls.server.client')
  client.stop()
  T.wait(function()
    return client.get() == nil
  end, 'the server to stop', 10000)
end

-- What the plugin tells the user from now on: a list, filled as messages come, of those `keep`
-- accepts (every one when it is nil), each {msg = …, level = …}; they still reach vim.notify.
function T.notifications(keep)
  local seen = {}
  local notify = vim.notify
  vim.notify = function(msg, level, opts)
    if keep == nil or keep(msg, level) then
      table.insert(seen, { msg = msg, level = level })
    end
    return notify(msg, level, opts)
  end
  return seen
end

-- A `keep` for T.notifications: the messages of one level.
function T.at(level)
  return function(_, at)
    return at == level
  end
end

return T
