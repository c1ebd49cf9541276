-- :Agentls opens the chat at once, before the server has answered: the winbar says it is starting,
-- then which agent and model the next prompt gets; a prompt sent meanwhile goes to the session once
-- it shows. The session list's answer is held back so that the moment before the session is certain.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local client = require('agentls.server.client')
local request = client.request
local release
client.request = function(method, params, cb)
  if method == 'agent/session/list' and not release then
    return request(method, params, function(err, result)
      release = function()
        cb(err, result)
      end
    end)
  end
  return request(method, params, cb)
end

-- What the transcript window's winbar shows (evaluated as Neovim draws it).
local function winbar()
  local win = T.chat().win
  return vim.api.nvim_eval_statusline(vim.wo[win].winbar, { winid = win, use_winbar = true, maxwidth = 300 }).str
end

vim.cmd('Agentls')
local chat = T.chat()
T.ok(chat.win and vim.api.nvim_win_is_valid(chat.win), 'the transcript window, at once')
T.eq(chat.prompt_win, vim.api.nvim_get_current_win(), 'the cursor in the prompt')
T.eq('agentls │ starting…', winbar(), 'the winbar while the server starts')

-- Written and sent before there is a session: it waits for one, in the prompt buffer.
T.send('hello there')
T.eq({ 'hello there' }, T.lines(chat.prompt_buf), 'the prompt, kept until a session takes it')

T.wait(function()
  return require('agentls').state.config and release
end, 'the config and the session list')
T.eq(nil, chat.session_id, 'no session yet')
T.eq('agentls │ build · fake/m', winbar(), 'the winbar before a session shows')

release()
T.wait(function()
  return chat.session_id and T.text(T.transcript()):find('hello back', 1, true)
end, 'the answer to the prompt sent early')
T.idle(chat.session_id)
T.eq({ '' }, T.lines(chat.prompt_buf), 'the prompt buffer, once sent')
T.ok(T.text(T.transcript()):find('## You\n\nhello there', 1, true), 'the early prompt:\n' .. T.text(T.transcript()))
local bar = winbar()
T.ok(bar:find('│ idle │', 1, true) and bar:find('│ build · fake/m$'), 'the winbar of the session: ' .. bar)
T.finish()
