-- A config the agent rejects: :Agentls still opens the chat, and its winbar says why there is no
-- session (the server also says it once, as a message).
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local errors = T.notifications(T.at(vim.log.levels.ERROR))

vim.cmd('Agentls')
local chat = T.chat()
T.wait(function()
  return chat.failed
end, 'the failure')
local win = chat.win
local bar = vim.api.nvim_eval_statusline(vim.wo[win].winbar, { winid = win, use_winbar = true, maxwidth = 300 }).str
T.ok(bar:find('^agentls │ no session: ') and bar:find('model', 1, true), 'the winbar: ' .. bar)
T.eq(nil, chat.session_id, 'no session')
T.ok(#errors >= 1, 'the error was shown')
T.settled()
require('agentls.server.client').stop()
T.wait(function()
  return require('agentls.server.client').get() == nil
end, 'the server to stop', 10000)
