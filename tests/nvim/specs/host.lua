-- setup({ host = 'auto' }) reaches the server as initializationOptions.host: its agent is the agent
-- host's, which it starts. The chat answers through it, and `agentls host status` lists Neovim.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
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
