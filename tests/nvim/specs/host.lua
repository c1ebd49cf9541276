-- setup({ host = 'auto' }) reaches the server as initializationOptions.host: its agent is the agent
-- host's, which it starts. The chat answers through it, and `agentls host status` lists Neovim.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
-- A host over TCP is a choice too; anything else is named and left at the default.
local config = require('agentls.config')
local options, problems = config.resolve({ host = 'tcp://127.0.0.1:7777' })
T.eq('tcp://127.0.0.1:7777', options.host, 'a tcp:// host: ' .. vim.inspect(problems))
T.eq(0, #problems, 'no problem with a tcp:// host')
options, problems = config.resolve({ host = 'tcp://127.0.0.1' })
T.eq(nil, options.host, 'a tcp:// host without its port is not taken')
T.ok(problems[1] and problems[1]:find('tcp://HOST:PORT', 1, true), 'and said: ' .. vim.inspect(problems))
T.setup({ host = 'auto' })

vim.cmd('Agentls')
local chat = T.chat()
T.send('hello there')
T.wait(function()
  return chat.session_id and T.text(T.transcript()):find('hello back', 1, true)
end, 'the answer, from the agent host', 60000)
T.idle(chat.session_id)

local status = vim.system({ os.getenv('AGENTLS_BIN'), 'host', 'status', '--json' }, { text = true }):wait()
T.eq(0, status.code, 'agentls host status: ' .. (status.stderr or ''))
local host = vim.json.decode(status.stdout)
T.ok(vim.tbl_contains(host.clients, 'Neovim'), 'Neovim among the attached clients: ' .. status.stdout)
io.stdout:write('HOST ' .. vim.json.encode(host) .. '\n')
T.finish()
